import { WorkerCodes, WorkerError } from '../errors/worker-error';

/** The job message body as the Manager sends it (`createdAt` is ignored). */
export interface JobMessage {
  readonly jobId: string;
  readonly mappedFields: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
  readonly filters?: Readonly<Record<string, unknown>>;
  readonly metadata: Readonly<Record<string, unknown>>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const JOB_ID_IN_TEXT = /"jobId"\s{0,10}:\s{0,10}"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"/;

/** A body that cannot become a job: the error to store, and which failures are plain JSON problems. */
export class MalformedMessageError extends Error {
  constructor(readonly detail: WorkerError | 'json') {
    super(detail === 'json' ? 'message body is not a valid job message' : detail.message);
    this.name = 'MalformedMessageError';
  }

  render(): string {
    return this.detail === 'json' ? 'message body is not a valid job message' : this.detail.render();
  }
}

export function isJobId(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value) && value !== NIL_UUID;
}

/** Parses and checks a body; throws MalformedMessageError. */
export function parseJobMessage(body: Buffer): JobMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new MalformedMessageError('json');
  }
  if (parsed === null) throw new MalformedMessageError(new WorkerError(WorkerCodes.nullPayload));
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new MalformedMessageError('json');
  const value = parsed as Record<string, unknown>;
  if (!isJobId(value.jobId)) throw new MalformedMessageError(new WorkerError(WorkerCodes.invalidJobId));
  const mapped = value.mappedFields;
  if (mapped !== undefined && mapped !== null && !isPlainObject(mapped)) throw new MalformedMessageError('json');
  if (!mapped || Object.keys(mapped).length === 0) throw new MalformedMessageError(new WorkerError(WorkerCodes.emptyMappedFields));
  for (const tables of Object.values(mapped)) {
    if (tables !== null && !isPlainObject(tables)) throw new MalformedMessageError('json');
    if (!tables || Object.keys(tables).length === 0) throw new MalformedMessageError(new WorkerError(WorkerCodes.datasourceWithoutTables));
    for (const fields of Object.values(tables)) {
      if (fields !== null && (!Array.isArray(fields) || fields.some((f) => typeof f !== 'string'))) throw new MalformedMessageError('json');
    }
  }
  if (value.filters !== undefined && value.filters !== null && !isPlainObject(value.filters)) throw new MalformedMessageError('json');
  if (value.metadata !== undefined && value.metadata !== null && !isPlainObject(value.metadata)) throw new MalformedMessageError('json');
  return {
    jobId: value.jobId.toLowerCase(),
    mappedFields: mapped as JobMessage['mappedFields'],
    ...(isPlainObject(value.filters) ? { filters: value.filters } : {}),
    metadata: isPlainObject(value.metadata) ? value.metadata : {},
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
