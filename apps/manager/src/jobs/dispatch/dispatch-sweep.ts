import { Logger } from '@nestjs/common';
import type { TenantContext } from '@fetcher/engine';
import { v7 as uuidv7 } from 'uuid';
import type { Clock } from '../../ports/clock.port';
import type { JobPublisher } from '../../ports/job-publisher.port';
import type { JobRepository } from '../../ports/job-repository.port';
import type { Job } from '../job';
import { failedEventPayload } from './failed-event';

export interface DispatchSweepSettings {
  readonly intervalSec: number;
  /** A job younger than this is still in its creator's hands. */
  readonly minAgeSec: number;
  /** Claims (republish attempts) before the job is failed. */
  readonly maxAttempts: number;
  /** How long a claim keeps other replicas off a job; also the delay before a failed republish is retried. */
  readonly lockSec?: number;
  readonly batchSize?: number;
  /**
   * A dispatched job still pending this long after its last dispatch has lost its message (a
   * Worker dead-lettered it without being able to fail the job). It MUST exceed the message's
   * validity (5 minutes plus 30 s of clock skew): after that, no message signed for the job can
   * start it any more, so a re-dispatch never races a message still waiting in a backlog.
   */
  readonly redispatchAfterSec: number;
  /** Re-dispatches of such a job before it is failed. */
  readonly maxRedispatches: number;
}

export interface SweepOutcome {
  readonly republished: number;
  readonly failed: number;
  /** Jobs failed by the sweep: out of dispatch attempts, or out of re-dispatches. */
  readonly gaveUp: number;
  readonly redispatched: number;
}

/** What the sweep counts; a prom-client Counter fits. */
export interface SweepMetrics {
  inc(): void;
}

export function gaveUpError(attempts: number): string {
  return `process failed: unable to publish after ${attempts} dispatch attempts`;
}

export function notPickedUpError(dispatches: number): string {
  return `process failed: job was not picked up after ${dispatches} dispatches`;
}

/**
 * Publishes the jobs whose creator stored them but never saw the broker confirm them (a crash or
 * a lost connection between insert and publish), and re-dispatches the dispatched jobs still
 * pending long after their message can have been used (it was dead-lettered while the job store
 * was down, say). Each replica sweeps; the atomic claim makes sure only one of them publishes a
 * given job at a time. A publish that fails keeps its claim until the lock lapses, which spaces out
 * the retries. After `maxAttempts`, or `maxRedispatches`, the job is failed while still pending,
 * and its `job.failed` event stored for the Worker's repairer to send: every job ends.
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
    /** The one tenant of single-tenant mode, or (multi-tenant) the tenants to sweep, asked at every pass. */
    private readonly tenants: TenantContext | (() => Promise<readonly TenantContext[]>),
    private readonly settings: DispatchSweepSettings,
    private readonly republishedTotal: SweepMetrics,
    private readonly redispatchedTotal: SweepMetrics,
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

  /**
   * One pass over every tenant: for each, up to one batch of undispatched jobs, then one of stale
   * jobs, oldest first. One tenant failing (its database away) is logged and never stops the others.
   */
  async sweepOnce(): Promise<SweepOutcome> {
    if (typeof this.tenants !== 'function') return this.sweepTenant(this.tenants);
    const total = { republished: 0, failed: 0, gaveUp: 0, redispatched: 0 };
    for (const tenant of await this.tenants()) {
      if (this.#stopped) break;
      try {
        const outcome = await this.sweepTenant(tenant);
        total.republished += outcome.republished;
        total.failed += outcome.failed;
        total.gaveUp += outcome.gaveUp;
        total.redispatched += outcome.redispatched;
      } catch (error) {
        this.logger.warn(`dispatch sweep of tenant ${tenant.tenantId} failed (${error instanceof Error ? error.name : 'error'})`);
      }
    }
    return total;
  }

  /** One tenant's pass. */
  async sweepTenant(tenant: TenantContext): Promise<SweepOutcome> {
    const outcome = { republished: 0, failed: 0, gaveUp: 0, redispatched: 0 };
    const lockMs = (this.settings.lockSec ?? 60) * 1000;
    const batch = this.settings.batchSize ?? 50;
    for (let i = 0; i < batch && !this.#stopped; i++) {
      const now = this.clock.now();
      const job = await this.jobs.claimUndispatched(tenant, {
        createdBefore: new Date(now.getTime() - this.settings.minAgeSec * 1000),
        now,
        lockUntil: new Date(now.getTime() + lockMs),
      });
      if (!job) break;
      if (job.dispatchAttempts >= this.settings.maxAttempts) {
        if (await this.#fail(tenant, job, gaveUpError(job.dispatchAttempts), now)) outcome.gaveUp++;
        this.logger.warn(`gave up dispatching job ${job.id} after ${job.dispatchAttempts} attempts`);
        continue;
      }
      if (!(await this.#publish(tenant, job))) {
        outcome.failed++;
        continue;
      }
      outcome.republished++;
      this.republishedTotal.inc();
      this.logger.log(`republished job ${job.id}`);
    }
    for (let i = 0; i < batch && !this.#stopped; i++) {
      const now = this.clock.now();
      const stale = await this.jobs.claimStale(tenant, {
        dispatchedBefore: new Date(now.getTime() - this.settings.redispatchAfterSec * 1000),
        now,
        lockUntil: new Date(now.getTime() + lockMs),
      });
      if (!stale) break;
      const { job, redispatches } = stale;
      if (redispatches >= this.settings.maxRedispatches) {
        if (await this.#fail(tenant, job, notPickedUpError(redispatches + 1), now)) outcome.gaveUp++;
        this.logger.warn(`failed job ${job.id}: still pending after ${redispatches + 1} dispatches`);
        continue;
      }
      if (!(await this.#publish(tenant, job))) {
        outcome.failed++;
        continue;
      }
      outcome.redispatched++;
      this.redispatchedTotal.inc();
      this.logger.warn(`re-dispatched job ${job.id}: still pending ${this.settings.redispatchAfterSec} s after its last dispatch`);
    }
    return outcome;
  }

  /** Same body and job id; the publisher signs it afresh, with a new request id for tracing. Confirmed: recorded. */
  async #publish(tenant: TenantContext, job: Job): Promise<boolean> {
    try {
      await this.publisher.publishExtractionRequested(tenant, job, uuidv7());
    } catch (error) {
      this.logger.warn(`publishing job ${job.id} failed (${error instanceof Error ? error.name : 'error'}); it stays claimed until the lock lapses`);
      return false;
    }
    await this.jobs.markDispatched(tenant, job.id, this.clock.now());
    return true;
  }

  /** Conditional on `pending`: a Worker that got a copy after all owns the job now. */
  #fail(tenant: TenantContext, job: Job, error: string, at: Date): Promise<boolean> {
    return this.jobs.markDispatchFailed(tenant, job.id, error, at, failedEventPayload(job, error));
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
