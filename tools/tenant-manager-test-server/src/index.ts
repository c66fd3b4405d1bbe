export {
  startTenantManagerTestServer, type RecordedRequest, type TenantManagerTestServer, type TenantManagerTestServerOptions,
} from './server/tenant-manager-test-server';
export {
  parseTenantRecord, parseTenantsFile, readTenantsFile, TENANT_STATUSES, TenantsFileError, type TenantConfigBody, type TenantRecord,
  type TenantStatus, type TenantsFile,
} from './tenants-file';
export { readyLine, runCli } from './run-cli';
