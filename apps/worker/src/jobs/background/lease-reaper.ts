import { Inject, Injectable, Logger } from '@nestjs/common';
import { WorkerMetrics } from '../../metrics/worker-metrics';
import { CLOCK, type Clock } from '../../ports/clock.port';
import { canceledEventPayload } from '@fetcher/contracts';
import { JOB_STORE, type JobRecord, type JobStore, type TerminalWrite } from '../../ports/job-store.port';
import { failedPayload, requestMetadata } from '../job-events';
import { JobOutbox } from '../job-outbox';
import { writeTerminalOrBare } from '../terminal-write';
import { JOB_SETTINGS, type JobSettings } from '../job-settings';

export const REAPED_ERROR = 'processing lease expired';
/** Jobs left in processing by the original service have no lease; they count as abandoned after this. */
const LEASELESS_AGE_MS = 15 * 60_000;

/**
 * Fails jobs whose worker is gone and whose message will not come back (the lease expired more than
 * one TTL ago and nobody took it over). The write is conditional on the lease it observed, so a
 * worker that renews or takes over meanwhile wins. A job asked to cancel ends `canceled` instead,
 * with the last progress its worker wrote: the cancel was what was asked, the death is incidental.
 */
@Injectable()
export class LeaseReaper {
  readonly #log = new Logger(LeaseReaper.name);

  constructor(
    @Inject(JOB_STORE) private readonly jobs: JobStore,
    @Inject(JOB_SETTINGS) private readonly settings: JobSettings,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly outbox: JobOutbox,
    private readonly metrics: WorkerMetrics,
  ) {}

  /** One pass; returns how many jobs were failed. Never throws. */
  async runOnce(): Promise<number> {
    let abandoned: Awaited<ReturnType<JobStore['abandoned']>>;
    try {
      abandoned = await this.jobs.abandoned(this.clock.now(), this.settings.leaseTtlMs, LEASELESS_AGE_MS);
    } catch {
      this.#log.warn('lease reaper pass failed; next pass retries');
      return 0;
    }
    let reaped = 0;
    // One job at a time: a job that cannot be written must not keep the others of the pass waiting.
    for (const job of abandoned) {
      try {
        if (await this.#reap(job)) reaped++;
      } catch {
        this.#log.warn(`job ${job.id}: could not be reaped; next pass retries`);
      }
    }
    return reaped;
  }

  async #reap(job: JobRecord): Promise<boolean> {
    const metadata = requestMetadata(job.metadata);
    const now = this.clock.now();
    const written = await writeTerminalOrBare(this.jobs, job.id, { kind: 'observed', token: job.lease?.token }, terminalOf(job, metadata, now), metadata);
    if (!written) return false;
    const { status } = written.write;
    this.metrics.leaseReaped.inc();
    this.metrics.jobs.inc({ status });
    if (status === 'canceled') this.metrics.jobsCanceled.inc();
    await this.outbox.emit(job.id, status, written.write.eventPayload).catch(() => this.#log.warn(`job ${job.id}: reaped, event left to the repairer`));
    return true;
  }
}

/** `canceled` with the last progress written for a job asked to cancel; otherwise the lease-expired failure. */
function terminalOf(job: JobRecord, metadata: Readonly<Record<string, unknown>>, now: Date): TerminalWrite {
  if (!job.cancelRequestedAt) return { status: 'failed', completedAt: now, error: REAPED_ERROR, eventPayload: failedPayload(job.id, metadata, REAPED_ERROR) };
  const tablesDone = job.progress?.tablesDone ?? 0;
  const rowsSoFar = job.progress?.rowsSoFar ?? 0;
  // Its worker died, so when the run began is unknown: the duration counts from the job's creation.
  const durationMs = job.createdAt ? Math.max(0, now.getTime() - job.createdAt.getTime()) : 0;
  return {
    status: 'canceled',
    completedAt: now,
    progress: { tablesDone, rowsSoFar, updatedAt: now },
    eventPayload: canceledEventPayload(job.id, metadata, { tablesDone, rowsSoFar, durationMs }, now),
  };
}
