import { WorkerCodes, WorkerError } from '../errors/worker-error';

/** What a job extracts: datasource -> table -> fields, and the optional filters. */
export interface JobRequest {
  readonly mappedFields: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
  readonly filters?: Readonly<Record<string, unknown>>;
}

/**
 * The job message body as the Manager sends it (`createdAt` is ignored). Only `jobId` decides what
 * runs: the request and metadata are the stored job's, so a body cannot change them.
 */
export interface JobMessage extends JobRequest {
  readonly jobId: string;
  readonly metadata: Readonly<Record<string, unknown>>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const JOB_ID_IN_TEXT = /"jobId"\s{0,10}:\s{0,10}"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"/;

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

/** Strict: a body that is not UTF-8 is not JSON (no replacement characters); a BOM stays and fails the parse. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function isJobId(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value) && value !== NIL_UUID;
}

/** Parses and checks a body; throws MalformedMessageError. */
export function parseJobMessage(body: Buffer): JobMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(UTF8.decode(body));
  } catch {
    throw new MalformedMessageError('json');
  }
  if (parsed === null) throw new MalformedMessageError(new WorkerError(WorkerCodes.nullPayload));
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new MalformedMessageError('json');
  const value = parsed as Record<string, unknown>;
  if (!isJobId(value.jobId)) throw new MalformedMessageError(new WorkerError(WorkerCodes.invalidJobId));
  const request = parseJobRequest(value.mappedFields, value.filters);
  if (value.metadata !== undefined && value.metadata !== null && !isPlainObject(value.metadata)) throw new MalformedMessageError('json');
  return { jobId: value.jobId.toLowerCase(), ...request, metadata: isPlainObject(value.metadata) ? value.metadata : {} };
}

/**
 * The stored job's request (`mapped_fields`, `filters`), checked like a body's, as a plain JSON copy:
 * the engine takes only plain objects as filters and ignores anything else (extracting unfiltered),
 * so objects a store built in another realm (a structured clone) must not reach it as they are.
 */
export function storedJobRequest(mapped: unknown, filters: unknown): JobRequest {
  let copy: { mappedFields?: unknown; filters?: unknown };
  try {
    copy = JSON.parse(JSON.stringify({ mappedFields: mapped, filters })) as typeof copy;
  } catch {
    throw new MalformedMessageError('json'); // a value JSON cannot hold (a bigint, a cycle)
  }
  return parseJobRequest(copy.mappedFields, copy.filters);
}

/** Checks a request with the rules and codes of a message body; throws MalformedMessageError. */
export function parseJobRequest(mapped: unknown, filters: unknown): JobRequest {
  if (mapped !== undefined && mapped !== null && !isPlainObject(mapped)) throw new MalformedMessageError('json');
  if (!mapped || Object.keys(mapped).length === 0) throw new MalformedMessageError(new WorkerError(WorkerCodes.emptyMappedFields));
  for (const tables of Object.values(mapped)) {
    if (tables !== null && !isPlainObject(tables)) throw new MalformedMessageError('json');
    if (!tables || Object.keys(tables).length === 0) throw new MalformedMessageError(new WorkerError(WorkerCodes.datasourceWithoutTables));
    for (const fields of Object.values(tables)) {
      if (fields !== null && (!Array.isArray(fields) || fields.some((f) => typeof f !== 'string'))) throw new MalformedMessageError('json');
    }
  }
  if (filters !== undefined && filters !== null && !isPlainObject(filters)) throw new MalformedMessageError('json');
  return { mappedFields: mapped as JobRequest['mappedFields'], ...(isPlainObject(filters) ? { filters } : {}) };
}

/** For a body that failed: the `jobId` header, a partial decode, then a pattern over the raw text. */
export function recoverJobId(body: Buffer, headerJobId: unknown): string | undefined {
  if (isJobId(headerJobId)) return headerJobId.toLowerCase();
  const text = body.toString('utf8');
  try {
    const parsed: unknown = JSON.parse(text);
    if (isPlainObject(parsed) && isJobId(parsed.jobId)) return parsed.jobId.toLowerCase();
  } catch {
    // fall through to the pattern
  }
  const match = JOB_ID_IN_TEXT.exec(text);
  return match && isJobId(match[1]) ? match[1].toLowerCase() : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
