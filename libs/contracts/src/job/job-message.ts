import type { MappedFields } from '@fetcher/engine';
import { canonicalJson } from '@fetcher/platform';
import type { JobFilters } from './job-request';
import type { JobIncremental } from './job-incremental';

/** What a job extracts, as a message or a stored job carries it: the filters arrive unchecked (the planner checks them). */
export interface JobRequest {
  readonly mappedFields: MappedFields;
  readonly filters?: Readonly<Record<string, unknown>>;
  /** Only for an incremental job: datasource -> table -> its incremental choice (the planner checks it). */
  readonly incremental?: Readonly<Record<string, unknown>>;
}

/**
 * The message that asks the Worker to run a job. Only `jobId` decides what runs: the Worker reads
 * the request and metadata from the stored job, so a body cannot change them.
 */
export interface JobMessage extends JobRequest {
  readonly jobId: string;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** What the Manager publishes: the job's request, its id and its creation time. */
export interface JobMessageSource {
  readonly id: string;
  readonly createdAt: Date;
  readonly mappedFields: MappedFields;
  readonly filters?: JobFilters;
  readonly incremental?: JobIncremental;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/**
 * Why a body (or a stored request) cannot become a job. `json` is any shape problem; the others
 * have business codes of their own in the Worker's catalogue.
 */
export type JobMessageProblem = 'json' | 'null_payload' | 'invalid_job_id' | 'empty_mapped_fields' | 'datasource_without_tables';

export class JobMessageError extends Error {
  constructor(readonly problem: JobMessageProblem) {
    super(`job message refused: ${problem}`);
    this.name = 'JobMessageError';
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const JOB_ID_IN_TEXT = /"jobId"\s{0,10}:\s{0,10}"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"/;

/** Strict: a body that is not UTF-8 is not JSON (no replacement characters); a BOM stays and fails the parse. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The body: `createdAt`, `filters` (only when there are some), `incremental` (only for an incremental
 * job, so other jobs' bodies are byte for byte the original's), `jobId`, `mappedFields`, `metadata`,
 * in that (sorted) key order and without whitespace. The Worker verifies the HMAC over these exact
 * bytes, so they are built once per publish and never re-serialised.
 */
export function buildJobMessage(job: JobMessageSource): Buffer {
  const body: Record<string, unknown> = {
    createdAt: job.createdAt.toISOString(),
    jobId: job.id,
    mappedFields: job.mappedFields,
    metadata: job.metadata,
  };
  if (job.filters && Object.keys(job.filters).length > 0) body.filters = job.filters;
  if (job.incremental && Object.keys(job.incremental).length > 0) body.incremental = job.incremental;
  return Buffer.from(canonicalJson(body), 'utf8');
}

export function isJobId(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value) && value !== NIL_UUID;
}

/** Parses and checks a body (`createdAt` is ignored); throws JobMessageError. */
export function parseJobMessage(body: Buffer): JobMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(UTF8.decode(body));
  } catch {
    throw new JobMessageError('json');
  }
  if (parsed === null) throw new JobMessageError('null_payload');
  if (!isPlainObject(parsed)) throw new JobMessageError('json');
  if (!isJobId(parsed.jobId)) throw new JobMessageError('invalid_job_id');
  const request = parseJobRequest(parsed.mappedFields, parsed.filters, parsed.incremental);
  if (parsed.metadata !== undefined && parsed.metadata !== null && !isPlainObject(parsed.metadata)) throw new JobMessageError('json');
  return { jobId: parsed.jobId.toLowerCase(), ...request, metadata: isPlainObject(parsed.metadata) ? parsed.metadata : {} };
}

/**
 * The stored job's request (`mapped_fields`, `filters`), checked like a body's, as a plain JSON copy:
 * the engine takes only plain objects as filters and ignores anything else (extracting unfiltered),
 * so objects a store built in another realm (a structured clone) must not reach it as they are.
 */
export function storedJobRequest(mapped: unknown, filters: unknown, incremental?: unknown): JobRequest {
  let copy: { mappedFields?: unknown; filters?: unknown; incremental?: unknown };
  try {
    copy = JSON.parse(JSON.stringify({ mappedFields: mapped, filters, incremental })) as typeof copy;
  } catch {
    throw new JobMessageError('json'); // a value JSON cannot hold (a bigint, a cycle)
  }
  return parseJobRequest(copy.mappedFields, copy.filters, copy.incremental);
}

/** Checks a request with the rules of a message body; throws JobMessageError. */
export function parseJobRequest(mapped: unknown, filters: unknown, incremental?: unknown): JobRequest {
  if (mapped !== undefined && mapped !== null && !isPlainObject(mapped)) throw new JobMessageError('json');
  if (!mapped || Object.keys(mapped).length === 0) throw new JobMessageError('empty_mapped_fields');
  for (const tables of Object.values(mapped)) {
    if (tables !== null && !isPlainObject(tables)) throw new JobMessageError('json');
    if (!tables || Object.keys(tables).length === 0) throw new JobMessageError('datasource_without_tables');
    for (const fields of Object.values(tables)) {
      if (fields !== null && (!Array.isArray(fields) || fields.some((f) => typeof f !== 'string'))) throw new JobMessageError('json');
    }
  }
  if (filters !== undefined && filters !== null && !isPlainObject(filters)) throw new JobMessageError('json');
  // A malformed incremental is refused, never dropped: dropping it would turn the job into a full extraction.
  if (incremental !== undefined && incremental !== null && !isPlainObject(incremental)) throw new JobMessageError('json');
  return {
    mappedFields: mapped as MappedFields,
    ...(isPlainObject(filters) ? { filters } : {}),
    ...(isPlainObject(incremental) ? { incremental } : {}),
  };
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
