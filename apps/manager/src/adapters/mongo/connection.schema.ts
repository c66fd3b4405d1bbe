import { CONNECTION_COLLECTION } from '@fetcher/contracts';
import { Schema } from 'mongoose';

export const CONNECTION_MODEL = 'Connection';

/**
 * The `connection` document (snake_case, as the original service and the Worker read it). The field
 * mapping is `@fetcher/contracts`' codec (`encodeConnection`, `decodeConnection`); the adapter
 * writes through the native collection so that ids stay BSON binaries of subtype 0x00. This schema
 * names the collection for mongoose.
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
