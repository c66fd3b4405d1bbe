import type { Logger } from '@nestjs/common';
import type { WorkerMetrics } from '../../metrics/worker-metrics';
import type { Clock } from '../../ports/clock.port';
import type { JobStore, TerminalStatus, TerminalWrite } from '../../ports/job-store.port';
import { HANDLED, type JobOutcome, refused } from '../delivery-outcome';
import { mapFailure } from '../failure-mapping';
import { failedPayload } from '../job-events';
import type { JobOutbox } from '../job-outbox';
import { type WrittenTerminal, writeTerminalOrBare } from '../terminal-write';

type Metadata = Readonly<Record<string, unknown>>;

/**
 * A job's one terminal write and its event. Each write is guarded (by the run's lease, or by the
 * job still being pending), so of two Workers that race only one records an outcome; the event goes
 * out only after its write, through the outbox, so a lost event is repaired from the stored one.
 */
export class JobTerminals {
  constructor(
    private readonly jobs: JobStore,
    private readonly clock: Clock,
    private readonly outbox: JobOutbox,
    private readonly metrics: WorkerMetrics,
    private readonly log: Logger,
  ) {}

  /** Writes under the run's lease; `undefined` when the lease was lost (the job is someone else's now). An outage throws. */
  writeLeased(jobId: string, token: string, write: TerminalWrite, metadata: Metadata): Promise<WrittenTerminal | undefined> {
    return writeTerminalOrBare(this.jobs, jobId, { kind: 'lease', token }, write, metadata);
  }

  /** Fails a job nobody started; `undefined` when it started meanwhile (its own delivery runs it). */
  async failPending(jobId: string, text: string, metadata: Metadata): Promise<WrittenTerminal | undefined> {
    const write: TerminalWrite = { status: 'failed', completedAt: this.clock.now(), error: text, eventPayload: failedPayload(jobId, metadata, text) };
    const written = await writeTerminalOrBare(this.jobs, jobId, { kind: 'pending' }, write, metadata);
    if (written) this.#logFailure(jobId, text);
    return written;
  }

  /** Fails the job a run held the lease of, with the text and outcome its error maps to. */
  async failLeased(jobId: string, token: string, metadata: Metadata, error: unknown, secrets: readonly string[], requestId: string): Promise<JobOutcome> {
    const { text, outcome } = mapFailure(error, secrets);
    const payload = failedPayload(jobId, metadata, text);
    let written: WrittenTerminal | undefined;
    try {
      written = await this.writeLeased(jobId, token, { status: 'failed', completedAt: this.clock.now(), error: text, eventPayload: payload }, metadata);
    } catch {
      return refused('terminal_write'); // the database is out of reach: the reaper fails the job once its lease has expired
    }
    if (!written) return HANDLED;
    this.#logFailure(jobId, text);
    return this.announce(jobId, written, requestId, outcome);
  }

  /**
   * One line at the default level per failed job, with the text stored in the job: it names the
   * datasource, table and field of a schema failure, and it is the sanitised text (addresses, URLs
   * and the job's secrets removed), so the log holds nothing the job record does not.
   */
  #logFailure(jobId: string, text: string): void {
    this.log.warn(`job ${jobId} failed: ${text}`);
  }

  /** Counts and announces a terminal write; a bare one (the real outcome was refused) refuses its delivery. */
  announce(jobId: string, written: WrittenTerminal, requestId: string, then: JobOutcome): Promise<JobOutcome> {
    const { status, eventPayload } = written.write;
    if (written.bare) this.log.warn(`job ${jobId}: the database refused its outcome as written; a bare failure was stored instead`);
    this.metrics.jobs.inc({ status });
    return this.emit(jobId, status, eventPayload, requestId, written.bare ? refused('terminal_write_refused') : then);
  }

  /** Sends a terminal event; one the broker did not confirm is left to the repairer and refuses the delivery. */
  async emit(jobId: string, status: TerminalStatus, payload: string, requestId: string, then: JobOutcome): Promise<JobOutcome> {
    try {
      await this.outbox.emit(jobId, status, payload, requestId);
      return then;
    } catch {
      this.log.warn(`job ${jobId}: ${status} event not confirmed; the repairer will send it`);
      return refused('event_publish');
    }
  }
}
