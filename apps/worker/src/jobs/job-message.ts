import {
  isJobId,
  JobMessageError,
  type JobMessage,
  type JobMessageProblem,
  type JobRequest,
  parseJobMessage as parseSharedJobMessage,
  recoverJobId,
  storedJobRequest as sharedStoredJobRequest,
} from '@fetcher/contracts';
import { WorkerCodes, WorkerError } from '../errors/worker-error';

// The message and its rules are the shared contract (`@fetcher/contracts`, which the Manager writes
// it with); this file gives its refusals the Worker's business codes and metric labels.
export { isJobId, recoverJobId, type JobMessage, type JobRequest };

/** The business code of a refusal; `json` (any shape problem) has none. */
const CODES: Readonly<Record<Exclude<JobMessageProblem, 'json'>, (typeof WorkerCodes)[keyof typeof WorkerCodes]>> = {
  null_payload: WorkerCodes.nullPayload,
  invalid_job_id: WorkerCodes.invalidJobId,
  empty_mapped_fields: WorkerCodes.emptyMappedFields,
  datasource_without_tables: WorkerCodes.datasourceWithoutTables,
};

/** The `reason` label of a dead-lettered malformed body, by business code. */
const REJECTION_REASONS: Readonly<Record<string, string>> = {
  [WorkerCodes.nullPayload.code]: 'malformed_null',
  [WorkerCodes.invalidJobId.code]: 'malformed_job_id',
  [WorkerCodes.emptyMappedFields.code]: 'malformed_mapped_fields',
  [WorkerCodes.datasourceWithoutTables.code]: 'malformed_tables',
};

/** A body that cannot become a job: the error to store, and which failures are plain JSON problems. */
export class MalformedMessageError extends Error {
  constructor(readonly detail: WorkerError | 'json') {
    super(detail === 'json' ? 'message body is not a valid job message' : detail.message);
    this.name = 'MalformedMessageError';
  }

  render(): string {
    return this.detail === 'json' ? 'message body is not a valid job message' : this.detail.render();
  }

  /** How the delivery is counted when it is dead-lettered (`fetcher_worker_messages_rejected_total{reason}`). */
  get reason(): string {
    return this.detail === 'json' ? 'malformed_json' : (REJECTION_REASONS[this.detail.code] ?? 'malformed_json');
  }
}

/** Parses and checks a body; throws MalformedMessageError. */
export function parseJobMessage(body: Buffer): JobMessage {
  return refusedAsMalformed(() => parseSharedJobMessage(body));
}

/** The stored job's request, checked like a body's, as a plain JSON copy; throws MalformedMessageError. */
export function storedJobRequest(mapped: unknown, filters: unknown, incremental?: unknown): JobRequest {
  return refusedAsMalformed(() => sharedStoredJobRequest(mapped, filters, incremental));
}

function refusedAsMalformed<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof JobMessageError)) throw error;
    throw new MalformedMessageError(error.problem === 'json' ? 'json' : new WorkerError(CODES[error.problem]));
  }
}
