import { Inject, Injectable, Logger } from '@nestjs/common';
import { WorkerMetrics } from '../../metrics/worker-metrics';
import { CLOCK, type Clock } from '../../ports/clock.port';
import { JOB_STORE, type JobRecord, type JobStore } from '../../ports/job-store.port';
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
 * worker that renews or takes over meanwhile wins.
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
    const payload = failedPayload(job.id, metadata, REAPED_ERROR);
    const written = await writeTerminalOrBare(this.jobs, job.id, { kind: 'observed', token: job.lease?.token }, {
      status: 'failed',
      completedAt: this.clock.now(),
      error: REAPED_ERROR,
      eventPayload: payload,
    }, metadata);
    if (!written) return false;
    this.metrics.leaseReaped.inc();
    this.metrics.jobs.inc({ status: 'failed' });
    await this.outbox.emit(job.id, 'failed', written.write.eventPayload).catch(() => this.#log.warn(`job ${job.id}: reaped, event left to the repairer`));
    return true;
  }
}
