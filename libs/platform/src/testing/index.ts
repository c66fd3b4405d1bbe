// The platform's test entry (`@fetcher/platform/testing`): helpers the apps' specs share. Tests only:
// jest and the root tsconfig.json map it to this file; the build leaves it out.
export { FaultProxy, type Shape } from './fault-proxy';
export { type Fault, type FaultControl, type MethodOf, withFaults, type WithFaults } from './with-faults';
export { aMasterKey, storedResult } from './stored-result';
export { createTenantVhosts, type TenantVhost, type TenantVhosts, type TenantVhostsOptions } from './tenant-vhosts';
