import { Inject, Injectable, Optional } from '@nestjs/common';
import { TENANT_SCOPE, type TenantScope } from '../../tenancy/tenant-scope';

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
 *
 * Multi-tenant mode: runs and requests are kept per tenant, the tenant in scope when they are made
 * (the vhost a delivery or a control message came from). A request can only reach a run of its own
 * tenant: a cancel that names another tenant's job id never touches that job. Single-tenant mode has
 * no scope, and one tenant.
 */
@Injectable()
export class JobCancelRegistry {
  readonly #runs = new Map<string, { controller: AbortController; requestedAt?: Date }>();
  readonly #requested = new Map<string, Date>();

  constructor(@Optional() @Inject(TENANT_SCOPE) private readonly scope: TenantScope | null = null) {}

  /** Records a cancel request for the tenant in scope; true when it stopped a run of this Worker. Repeats are harmless. */
  request(jobId: string, requestedAt: Date): boolean {
    return this.#request(this.#key(jobId), jobId, requestedAt);
  }

  /** Starts watching a run of the job for the tenant in scope; a request remembered before it started aborts it at once. */
  watch(jobId: string): CancelWatch {
    const key = this.#key(jobId);
    const controller = new AbortController();
    const run: { controller: AbortController; requestedAt?: Date } = { controller };
    this.#runs.set(key, run);
    const remembered = this.#requested.get(key);
    if (remembered) {
      this.#requested.delete(key);
      this.#request(key, jobId, remembered);
    }
    return {
      signal: controller.signal,
      get requestedAt() {
        return run.requestedAt;
      },
      release: () => {
        if (this.#runs.get(key) === run) this.#runs.delete(key);
      },
    };
  }

  /** Runs being watched (for tests and shutdown checks). */
  get running(): number {
    return this.#runs.size;
  }

  /** The tenant in scope (none in single-tenant mode) and the job id; a newline is in neither. */
  #key(jobId: string): string {
    return `${this.scope?.current() ?? ''}\n${jobId}`;
  }

  #request(key: string, jobId: string, requestedAt: Date): boolean {
    const run = this.#runs.get(key);
    if (!run) {
      this.#remember(key, requestedAt);
      return false;
    }
    if (run.controller.signal.aborted) return false;
    run.requestedAt = requestedAt;
    run.controller.abort(new JobCanceled(jobId));
    return true;
  }

  #remember(key: string, requestedAt: Date): void {
    this.#requested.delete(key);
    this.#requested.set(key, requestedAt);
    if (this.#requested.size > REMEMBERED_REQUESTS) {
      const oldest = this.#requested.keys().next().value;
      if (oldest !== undefined) this.#requested.delete(oldest);
    }
  }
}
