// Test support for suites outside the Worker (end-to-end): the Worker in multi-tenant mode on real services.
export { header, Inbox, type MultiTenantWorld, MT_EVENTS_EXCHANGE, MT_WORK_QUEUE, startMultiTenantWorld, uuidBinary } from './multi-tenant-world';
