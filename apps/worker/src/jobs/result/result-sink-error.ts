import { ResultStoreRefused, ResultStoreThrottled } from '../../ports/result-store.port';

/**
 * Why a result could not be stored, told apart by error codes (never by text): the Worker's spool
 * volume (full, not writable, other I/O) or object storage (throttling, refusing, unreachable).
 * Operators act differently on each, so the job's failure text names it; it never names a path,
 * a bucket or an endpoint.
 */
export type ResultSinkReason = 'spool_full' | 'spool_unwritable' | 'spool_io' | 'storage_throttled' | 'storage_refused' | 'storage_unavailable';

export const RESULT_SINK_TEXT: Readonly<Record<ResultSinkReason, string>> = Object.freeze({
  spool_full: "result spool is full: no space left on the Worker's spool volume",
  spool_unwritable: "result spool is not writable: permission denied on the Worker's spool directory",
  spool_io: 'result spool could not be read or written',
  storage_throttled: 'object storage kept throttling the upload (503 Slow Down) after every retry',
  storage_refused: 'object storage refused the upload',
  storage_unavailable: 'object storage unavailable',
});

export class ResultSinkError extends Error {
  constructor(
    readonly reason: ResultSinkReason,
    options?: { cause?: unknown },
  ) {
    super(RESULT_SINK_TEXT[reason], options);
    this.name = 'ResultSinkError';
  }
}

/** A spool file operation's failure, by its errno code. */
export function spoolError(error: unknown): ResultSinkError {
  if (error instanceof ResultSinkError) return error;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const reason = code === 'ENOSPC' || code === 'EDQUOT' ? 'spool_full' : code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? 'spool_unwritable' : 'spool_io';
  return new ResultSinkError(reason, { cause: error });
}

/** An object storage call's last failure, once its retries are spent (a spool failure inside it passes through). */
export function storageError(error: unknown): ResultSinkError {
  if (error instanceof ResultSinkError) return error;
  if (error instanceof ResultStoreRefused) return new ResultSinkError('storage_refused', { cause: error });
  if (error instanceof ResultStoreThrottled) return new ResultSinkError('storage_throttled', { cause: error });
  return new ResultSinkError('storage_unavailable', { cause: error });
}

/** The sink failure behind an error (the engine wraps the sink's errors in its own), if any. */
export function resultSinkErrorOf(error: unknown): ResultSinkError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 10 && current instanceof Error; depth++) {
    if (current instanceof ResultSinkError) return current;
    current = current.cause;
  }
  return undefined;
}
