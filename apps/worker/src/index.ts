// The Worker's public entry, for a host that embeds it (apps/standalone): its module, its settings
// loader, and the ports, consumer and rules such a host needs to bind its own adapters. Everything
// else in src/ is internal (docs/architecture.md, "Import rules").
export { WorkerModule, type WorkerInfrastructure } from './worker.module';
export { loadWorkerConfig, WORKER_CONFIG, type WorkerConfig, type WorkerMongoSettings, type WorkerSettingsOptions } from './config/worker.config';
export type { InternalDatasource } from './config/worker.config';
/** The spool directory must be prepared (and a dead process's leftovers removed) before the module starts. */
export { prepareSpoolDir } from './jobs/result/spool-dir';
export { JobCancelRegistry } from './jobs/cancel/job-cancel-registry';

// The consumer: a host delivers work through a Nest transport strategy bound to this token, speaking
// the same pattern and context as the RabbitMQ one.
export { JOB_REQUESTED, JobQueueContext, JobQueueTransport } from './adapters/amqp/job-queue.transport';
export { settlementOf } from './adapters/amqp/settlement';
/** The headers of a delivery put back for another try (the retry count the Worker reads). */
export { nextRetryHeaders } from './jobs/redelivery';

// Ports a host binds, the types they speak, and the rules every JobStore applies.
export { CONNECTION_RESOLVER, type ConnectionResolver, type ResolvedConnection } from './ports/connection-resolver.port';
export { resolvedConnection, resolvedInternal } from './jobs/resolved-connections';
export { EVENT_PUBLISHER, type EventPublisher, type OutgoingEvent } from './ports/event-publisher.port';
export {
  JOB_STORE,
  type JobLease,
  type JobProgress,
  type JobRecord,
  type JobStatus,
  type JobStore,
  type TerminalGuard,
  type TerminalStatus,
  type TerminalWrite,
  TerminalWriteRefused,
} from './ports/job-store.port';
export { awaitsEvent, canAcquire, guardAdmits, holdsLease, isAbandoned, type JobState, jobRecordOf } from './ports/job-store.rules';
export { RESULT_STORE, type ReplayableBody, type ResultStore } from './ports/result-store.port';

// The embedded adapters, for a host that runs the Worker without MongoDB, RabbitMQ and S3; the job
// table the job store shares with the Manager's repository is in @fetcher/contracts.
export { type LiveConnections, MemoryConnectionResolver } from './adapters/embedded/connection-resolver.memory';
export { FileEventLog } from './adapters/embedded/event-log.fs';
export { MemoryJobStore } from './adapters/embedded/job-store.memory';
export { FileSystemResultStore } from './adapters/embedded/result-store.fs';
