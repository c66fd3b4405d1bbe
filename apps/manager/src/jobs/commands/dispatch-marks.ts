import { Logger } from '@nestjs/common';
import type { TenantContext } from '@fetcher/engine';
import type { Subsystem } from '@fetcher/platform';
import type { JobRepository } from '../../ports/job-repository.port';
import { describeError as describe } from './publish-new-job';

/**
 * The `dispatched_at` writes of jobs just published, made after the request has its answer: the
 * message is confirmed by then, and the write only tells the dispatch sweep to leave the job alone.
 * A write that fails or never lands (the process ends first) leaves the job as a crash between
 * publish and mark would: the sweep republishes it after `DISPATCH_SWEEP_MIN_AGE_SEC`, a duplicate
 * message that the Worker's lease makes harmless. A subsystem so that a graceful stop waits for the
 * writes still in flight, as it waits for the sweep's pass.
 */
export class DispatchMarks implements Subsystem {
  readonly name = 'dispatch-marks';
  readonly #logger = new Logger(DispatchMarks.name);
  readonly #inFlight = new Set<Promise<void>>();

  constructor(private readonly jobs: JobRepository) {}

  /** Starts the write and returns at once; a failure is logged, never thrown. */
  record(tenant: TenantContext, jobId: string, at: Date): void {
    const write: Promise<void> = this.jobs
      .markDispatched(tenant, jobId, at)
      .catch((error: unknown) => {
        this.#logger.warn(`recording the dispatch of job ${jobId} failed (${describe(error)}); the dispatch sweep republishes it`);
      })
      .finally(() => this.#inFlight.delete(write));
    this.#inFlight.add(write);
  }

  /** Resolves once every write started so far has landed or failed. */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  stop(): Promise<void> {
    return this.settled();
  }
}

