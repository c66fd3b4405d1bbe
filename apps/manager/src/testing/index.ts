// The Manager's test entry (`@fetcher/manager/testing`): helpers other workspaces' specs use to check
// their own adapters of the Manager's ports. Tests only: jest and tsc map it to this file; the build leaves it out.
export { type DeliveredMessage, jobPublisherContract } from './job-publisher.contract';
export { jobRepositoryContract } from './job-repository.contract';
export { aMasterKey, managerTestEnv } from './manager-test-env';
export { provisionTenantIndexes } from './tenant-indexes';
export { aSigningKey, aTenantToken, type TestSigningKey } from './token-signer';
