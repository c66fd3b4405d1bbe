import { Logger } from '@nestjs/common';
import type { TenantContext } from '@fetcher/engine';
import { v7 as uuidv7 } from 'uuid';
import type { Clock } from '../../ports/clock.port';
import type { JobPublisher } from '../../ports/job-publisher.port';
import type { JobRepository } from '../../ports/job-repository.port';

export interface DispatchSweepSettings {
  readonly intervalSec: number;
  /** A job younger than this is still in its creator's hands. */
  readonly minAgeSec: number;
  /** Claims (republish attempts) before the job is failed. */
  readonly maxAttempts: number;
  /** How long a claim keeps other replicas off a job; also the delay before a failed republish is retried. */
  readonly lockSec?: number;
  readonly batchSize?: number;
}

export interface SweepOutcome {
  readonly republished: number;
  readonly failed: number;
  readonly gaveUp: number;
}

/** What the sweep counts; a prom-client Counter fits. */
export interface SweepMetrics {
  inc(): void;
}

export function gaveUpError(attempts: number): string {
  return `process failed: unable to publish after ${attempts} dispatch attempts`;
}

/**
 * Publishes the jobs whose creator stored them but never saw the broker confirm them (a crash or
 * a lost connection between insert and publish). Each replica sweeps; the atomic claim makes sure
 * only one of them republishes a given job at a time. A republish that fails keeps its claim until
 * the lock lapses, which spaces out the retries; after `maxAttempts` the job is failed.
 */
export class DispatchSweep {
  readonly name = 'dispatch-sweep';
  private readonly logger = new Logger(DispatchSweep.name);
  #timer?: NodeJS.Timeout;
  #running?: Promise<unknown>;
  #stopped = false;

  constructor(
    private readonly jobs: JobRepository,
    private readonly publisher: JobPublisher,
    private readonly clock: Clock,
    private readonly tenant: TenantContext,
    private readonly settings: DispatchSweepSettings,
    private readonly republishedTotal: SweepMetrics,
  ) {}

  start(signal?: AbortSignal): Promise<void> {
    this.#stopped = false;
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    this.#schedule();
    return Promise.resolve();
  }

  /** Stops scheduling and waits for a sweep in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  /** One pass: claims and handles up to one batch of jobs, oldest first. */
  async sweepOnce(): Promise<SweepOutcome> {
    const outcome = { republished: 0, failed: 0, gaveUp: 0 };
    const lockMs = (this.settings.lockSec ?? 60) * 1000;
    for (let i = 0; i < (this.settings.batchSize ?? 50) && !this.#stopped; i++) {
      const now = this.clock.now();
      const job = await this.jobs.claimUndispatched(this.tenant, {
        createdBefore: new Date(now.getTime() - this.settings.minAgeSec * 1000),
        now,
        lockUntil: new Date(now.getTime() + lockMs),
      });
      if (!job) break;
      if (job.dispatchAttempts >= this.settings.maxAttempts) {
        // Conditional on `pending`: a Worker that got an earlier copy after all owns the job now.
        if (await this.jobs.markDispatchFailed(this.tenant, job.id, gaveUpError(job.dispatchAttempts), now)) outcome.gaveUp++;
        this.logger.warn(`gave up dispatching job ${job.id} after ${job.dispatchAttempts} attempts`);
        continue;
      }
      try {
        // Same body and job id; the publisher signs it afresh, with a new request id for tracing.
        await this.publisher.publishExtractionRequested(this.tenant, job, uuidv7());
      } catch (error) {
        outcome.failed++;
        this.logger.warn(`republishing job ${job.id} failed (${error instanceof Error ? error.name : 'error'}); it stays claimed until the lock lapses`);
        continue;
      }
      outcome.republished++;
      this.republishedTotal.inc();
      await this.jobs.markDispatched(this.tenant, job.id, this.clock.now());
      this.logger.log(`republished job ${job.id}`);
    }
    return outcome;
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.sweepOnce()
        .catch((error: unknown) => this.logger.error(`dispatch sweep failed (${error instanceof Error ? error.name : 'error'})`))
        .finally(() => {
          this.#running = undefined;
          this.#schedule();
        });
    }, this.settings.intervalSec * 1000);
    this.#timer.unref();
  }
}
