import type { IndexSpec } from '../indexes';

/** The indexes of `connection`; the Manager, which writes and lists connections, creates them all. */
export const CONNECTION_INDEXES: readonly IndexSpec[] = Object.freeze<IndexSpec[]>([
  { name: 'idx_connection_config_name', key: { config_name: 1 }, owner: 'manager', unique: true, partialFilterExpression: { deleted_at: null } },
  { name: 'idx_connection_created', key: { created_at: -1 }, owner: 'manager', partialFilterExpression: { deleted_at: null } },
  { name: 'idx_connection_database_name', key: { database_name: 1 }, owner: 'manager', partialFilterExpression: { deleted_at: null } },
]);

/** Left by older releases; their uniqueness rules no longer hold. The Manager drops them. */
export const LEGACY_CONNECTION_INDEXES: readonly string[] = Object.freeze(['idx_connection_product_config', 'idx_connection_product_created', 'idx_connection_unassigned']);
