import { Injectable } from '@nestjs/common';

/** How many cancel requests for jobs not running here are remembered (oldest forgotten first). */
const REMEMBERED_REQUESTS = 1_000;

/** A run's view of cancel requests for its job. */
export interface CancelWatch {
  /** Aborts (with a `JobCanceled` reason) once a cancel is requested for the job. */
  readonly signal: AbortSignal;
  /** When the first cancel request said it was asked for, once one arrived. */
  readonly requestedAt: Date | undefined;
  /** The run ended: later requests for the job are only remembered. */
  release(): void;
}

/** The abort reason of a run stopped by a cancel request. */
export class JobCanceled extends Error {
  constructor(readonly jobId: string) {
    super('job canceled');
    this.name = 'JobCanceled';
  }
}

/**
 * Cancel requests by job id, from either way a cancel reaches this Worker: the control message
 * (at once, on every replica) and the lease renewal (within a third of the TTL, even when the
 * message was lost). A request for a job that runs here aborts its run; one for a job that does
 * not is remembered for a while, in case its run is about to start (the message outran the lease).
 */
@Injectable()
export class JobCancelRegistry {
  readonly #runs = new Map<string, { controller: AbortController; requestedAt?: Date }>();
  readonly #requested = new Map<string, Date>();

  /** Records a cancel request; true when it stopped a run of this Worker. Repeats are harmless. */
  request(jobId: string, requestedAt: Date): boolean {
    const run = this.#runs.get(jobId);
    if (!run) {
      this.#remember(jobId, requestedAt);
      return false;
    }
    if (run.controller.signal.aborted) return false;
    run.requestedAt = requestedAt;
    run.controller.abort(new JobCanceled(jobId));
    return true;
  }

  /** Starts watching a run of the job; a request remembered before it started aborts it at once. */
  watch(jobId: string): CancelWatch {
    const controller = new AbortController();
    const run: { controller: AbortController; requestedAt?: Date } = { controller };
    this.#runs.set(jobId, run);
    const remembered = this.#requested.get(jobId);
    if (remembered) {
      this.#requested.delete(jobId);
      this.request(jobId, remembered);
    }
    return {
      signal: controller.signal,
      get requestedAt() {
        return run.requestedAt;
      },
      release: () => {
        if (this.#runs.get(jobId) === run) this.#runs.delete(jobId);
      },
    };
  }

  /** Runs being watched (for tests and shutdown checks). */
  get running(): number {
    return this.#runs.size;
  }

  #remember(jobId: string, requestedAt: Date): void {
    this.#requested.delete(jobId);
    this.#requested.set(jobId, requestedAt);
    if (this.#requested.size > REMEMBERED_REQUESTS) {
      const oldest = this.#requested.keys().next().value;
      if (oldest !== undefined) this.#requested.delete(oldest);
    }
  }
}
