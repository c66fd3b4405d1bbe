// What the Manager and the Worker both read and write. One definition each, so the two services
// cannot drift: stored documents and their indexes, ids, the job message, and shared settings.
export { binaryToUuid, idFilter, isUuid, uuidToBinary } from './ids/uuid-binary';
export { createIndexArgs, indexesOwnedBy, type IndexOwner, type IndexSpec } from './indexes';
export type { JobFilters } from './job/job-request';
export { decodeCursors, incrementalInEngineKeys, type JobCursors, type JobIncremental } from './job/job-incremental';
export {
  decodeJobDocument, encodeLease, encodeNewJob, encodeProgress, encodeResultStats, isActiveJobStatus, JOB_COLLECTION, TERMINAL_EVENT_MARKER_KEYS, terminalEventMarker,
  type JobDocument, type JobDocumentRecord, type JobLease, type JobProgress, type JobResultStats, type NewJobRecord,
} from './job/job-document';
export { ACTIVE_HASH_INDEX, JOB_INDEXES } from './job/job-indexes';
export { JobTable, type StoredJob, type StoredJobStatus } from './job/job-table';
export {
  buildJobMessage, isJobId, JobMessageError, parseJobMessage, parseJobRequest, recoverJobId, storedJobRequest,
  type JobMessage, type JobMessageProblem, type JobMessageSource, type JobRequest,
} from './job/job-message';
export {
  CONNECTION_COLLECTION, decodeConnection, encodeConnection, OPTIONAL_CONNECTION_FIELDS, type StoredConnection, type StoredSsl,
} from './connection/connection-document';
export { CONNECTION_INDEXES, LEGACY_CONNECTION_INDEXES } from './connection/connection-indexes';
export {
  readInternalDatasources, type InternalDatasourceRules, type InternalDatasourceSettings, type InternalDatasourcesResult,
} from './datasources/internal-datasources';
export { MONGO_CREDENTIALS, MONGO_ENV, MONGO_ENV_EMBEDDED, mongoSettingsFrom, mongoTlsRequirement, type MongoSettings } from './config/mongo-env';
export { RABBITMQ_CREDENTIALS, RABBITMQ_ENV, rabbitmqSettingsFrom, rabbitmqTlsRequirement, type RabbitmqSettings } from './config/rabbitmq-env';
export { telemetryEnv, telemetrySettingsFrom } from './config/telemetry-env';
export {
  MULTI_TENANT_NOT_SERVED,
  SINGLE_TENANT_ID,
  TENANCY_ENV,
  TENANCY_TOKEN_ENV,
  TENANCY_WORKER_ENV,
  TENANT_TOKEN_ALGORITHMS,
  tenancyChecks,
  multiTenantRequested,
  tenancySettingsFrom,
  tenancyTlsRequirements,
  tenantTokenSettingsFrom,
  type MultiTenancy,
  type SingleTenancy,
  type TenantTokenAlgorithm,
  type TenantTokenSettings,
} from './config/tenancy-env';
export {
  buildJobCancelMessage, CANCEL_REQUESTED_AT_FIELD, CANCELED_STATUS, canceledEventPayload, encodeCancelRequest, JOB_CANCEL_TYPE, JOB_CONTROL_EXCHANGE,
  JOB_CONTROL_ROUTING_KEY, parseJobControlMessage, type CanceledProgress, type JobCancelMessage,
} from './job/job-control';
