import type { Clock } from '../ports/clock.port';
import type { JobStore } from '../ports/job-store.port';

/**
 * Keeps one job's lease alive: renews every TTL/3. When a renewal finds the lease taken, or the
 * local clock passes the expiry without a successful renewal, the lease is lost and `signal` aborts,
 * which stops the extraction; the job then writes nothing. A renewal that finds a cancel requested
 * keeps the lease (the run still has to record `canceled` under it) and tells `onCancelRequested`.
 */
export class LeaseKeeper {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  #expiresAt: Date;
  #lost = false;
  #renewing = false;

  constructor(
    private readonly jobs: JobStore,
    private readonly clock: Clock,
    private readonly jobId: string,
    private readonly token: string,
    private readonly ttlMs: number,
    expiresAt: Date,
    private readonly onCancelRequested: (requestedAt: Date) => void = () => undefined,
  ) {
    this.#expiresAt = expiresAt;
    this.#timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(ttlMs / 3)));
    this.#timer.unref();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get lost(): boolean {
    return this.#lost;
  }

  async renew(): Promise<void> {
    if (this.#lost || this.#renewing) return;
    this.#renewing = true;
    try {
      const expiresAt = new Date(this.clock.now().getTime() + this.ttlMs);
      const renewal = await this.jobs.renew(this.jobId, this.token, expiresAt);
      if (!renewal.held) {
        this.#lose();
        return;
      }
      this.#expiresAt = expiresAt;
      if (renewal.cancelRequestedAt) this.onCancelRequested(renewal.cancelRequestedAt);
    } catch {
      // A database error: try again at the next tick, unless the lease has run out meanwhile.
      if (this.clock.now() >= this.#expiresAt) this.#lose();
    } finally {
      this.#renewing = false;
    }
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  #lose(): void {
    this.#lost = true;
    this.stop();
    this.#controller.abort(new Error('job lease lost'));
  }
}
