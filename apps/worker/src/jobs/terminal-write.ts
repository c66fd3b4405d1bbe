import { type JobStore, type TerminalGuard, type TerminalWrite, TerminalWriteRefused } from '../ports/job-store.port';
import { failedPayload } from './job-events';

/** The error text of a job whose real outcome the database refused to store. */
export const UNSTORABLE_ERROR = 'process failed: the job outcome could not be stored';
/** A `source` longer than this is left out of the bare event too. */
const MAX_SOURCE_CHARS = 256;

/** What was written: the write as asked, or the bare failure put in its place. */
export interface WrittenTerminal {
  readonly write: TerminalWrite;
  readonly bare: boolean;
}

/**
 * A terminal write that always leaves the job terminal when the database is reachable. If the
 * database refuses the write as written (the document it would make is too large, or cannot be
 * stored), a bare failure goes in its place under the same guard: a fixed error text and an event
 * whose metadata is only the product (`source`), so nothing of the refused write is repeated and no
 * job waits for the lease reaper. `undefined` when the guard no longer holds; an outage, or a bare
 * write refused too, throws.
 */
export async function writeTerminalOrBare(
  jobs: JobStore,
  jobId: string,
  guard: TerminalGuard,
  write: TerminalWrite,
  metadata: Readonly<Record<string, unknown>>,
): Promise<WrittenTerminal | undefined> {
  try {
    return (await jobs.writeTerminal(jobId, guard, write)) ? { write, bare: false } : undefined;
  } catch (error) {
    if (!(error instanceof TerminalWriteRefused)) throw error;
  }
  const source = metadata.source;
  const bareMetadata = typeof source === 'string' && source.length <= MAX_SOURCE_CHARS ? { source } : {};
  const bare: TerminalWrite = {
    status: 'failed',
    completedAt: write.completedAt,
    error: UNSTORABLE_ERROR,
    eventPayload: failedPayload(jobId, bareMetadata, UNSTORABLE_ERROR),
  };
  return (await jobs.writeTerminal(jobId, guard, bare)) ? { write: bare, bare: true } : undefined;
}
