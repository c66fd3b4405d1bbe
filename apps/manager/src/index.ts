// The Manager's public entry, for a host that embeds it (apps/standalone): its module and HTTP app,
// its settings loader, and the ports such a host binds to its own adapters. Everything else in
// src/ is internal (docs/architecture.md, "Import rules").
export { ManagerModule, type ManagerInfrastructure, type ManagerModuleOptions } from './manager.module';
export { createManagerApp, type ManagerAppOptions } from './http/http-app';
/** The multi-tenant tenant guard's token check, for bench/tenant-guard.bench.ts. */
export { TenantTokenVerifier, type TenantTokenVerifierOptions } from './auth/tenant-token.verifier';
export { loadManagerConfig, MANAGER_CONFIG, type ManagerConfig, type ManagerSettingsOptions, type MongoSettings } from './config/manager.config';

// Ports a host binds, and the types they speak.
export { ACTIVE_EXECUTION_CHECKER, type ActiveExecutionChecker } from './ports/active-execution-checker.port';
export { CLOCK, type Clock, SYSTEM_CLOCK } from './ports/clock.port';
export {
  CONNECTION_REPOSITORY,
  type ConnectionListFilter,
  type ConnectionListQuery,
  type ConnectionRepository,
  type StoredConnection,
  type StoredSsl,
} from './ports/connection-repository.port';
export { JOB_PUBLISHER, type JobPublisher } from './ports/job-publisher.port';
export { JOB_CONTROL_PUBLISHER, type JobControlPublisher } from './ports/job-control-publisher.port';
export { RESULT_READER, ResultObjectMissing, type ResultReader } from './ports/result-reader.port';
export { type CreateOutcome, type DispatchClaim, type InsertOutcome, JOB_REPOSITORY, type JobRepository, type StaleClaim, type StaleJob } from './ports/job-repository.port';
export type { Job, JobProgress, JobStatus } from './jobs/job';
/** The errors a ConnectionRepository raises (a duplicate config name, a missing connection). */
export { AppError } from './errors/app-error';
export { Errors } from './errors/catalogue';

// The embedded adapters (in memory, optionally written down to a directory), for a host that runs
// the Manager without MongoDB; the job table they share with the Worker's is in @fetcher/contracts.
export { MemoryActiveExecutionChecker } from './adapters/embedded/active-execution-checker.memory';
export { type ConnectionRecord, MemoryConnectionRepository } from './adapters/embedded/connection-repository.memory';
export { MemoryJobRepository } from './adapters/embedded/job-repository.memory';
export { FileSystemResultReader } from './adapters/embedded/result-reader.fs';
export { type CancelListener, InProcessJobControlPublisher } from './adapters/embedded/job-control-publisher.in-process';
