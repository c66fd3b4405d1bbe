import { Schema } from 'mongoose';

export const CONNECTION_COLLECTION = 'connection';
export const CONNECTION_MODEL = 'Connection';

/**
 * The `connection` document (snake_case, as the original service and the Worker read it). The
 * adapter writes through the native collection so that ids stay BSON binaries of subtype 0x00;
 * the schema documents the shape and names the collection for mongoose.
 */
export const ConnectionSchema = new Schema(
  {
    _id: { type: Buffer },
    product_name: String,
    config_name: String,
    type: String,
    host: String,
    port: Number,
    database_name: String,
    username: String,
    schema: String,
    password_encrypted: String,
    encryption_key_version: String,
    ssl: { type: Schema.Types.Mixed },
    metadata: { type: Schema.Types.Mixed },
    created_at: Date,
    updated_at: Date,
    deleted_at: Date,
  },
  { collection: CONNECTION_COLLECTION, versionKey: false, autoIndex: false, strict: false },
);

/** Created at startup in single-tenant mode; names are part of the contract with operators. */
export const CONNECTION_INDEXES = [
  { name: 'idx_connection_config_name', key: { config_name: 1 }, unique: true, partialFilterExpression: { deleted_at: null } },
  { name: 'idx_connection_created', key: { created_at: -1 }, partialFilterExpression: { deleted_at: null } },
  { name: 'idx_connection_database_name', key: { database_name: 1 }, partialFilterExpression: { deleted_at: null } },
] as const;

/** Left by older releases; their uniqueness rules no longer hold. */
export const LEGACY_CONNECTION_INDEXES = ['idx_connection_product_config', 'idx_connection_product_created', 'idx_connection_unassigned'];
