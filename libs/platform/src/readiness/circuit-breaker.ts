import { type BreakerState } from './probe';

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the breaker. */
  readonly threshold?: number;
  /** How long it stays open before admitting a trial. */
  readonly coolDownMs?: number;
  /** Trials admitted at once while half-open. */
  readonly halfOpenMaxTrials?: number;
  readonly now?: () => number;
}

/** Thrown by `run` while the breaker refuses calls. */
export class CircuitOpenError extends Error {
  constructor(readonly breakerName: string) {
    super(`circuit breaker open: ${breakerName}`);
    this.name = 'CircuitOpenError';
  }
}

/**
 * Stops hammering a dependency that keeps failing: after `threshold` consecutive failures calls fail at
 * once for `coolDownMs`, then `halfOpenMaxTrials` trial calls decide between closing and reopening.
 */
export class CircuitBreaker {
  readonly #threshold: number;
  readonly #coolDownMs: number;
  readonly #halfOpenMax: number;
  readonly #now: () => number;
  #failures = 0;
  #openedAt: number | undefined;
  #trials = 0;

  constructor(readonly name: string, options: CircuitBreakerOptions = {}) {
    this.#threshold = options.threshold ?? 5;
    this.#coolDownMs = options.coolDownMs ?? 30_000;
    this.#halfOpenMax = options.halfOpenMaxTrials ?? 1;
    this.#now = options.now ?? Date.now;
  }

  get state(): BreakerState {
    if (this.#openedAt === undefined) return 'closed';
    return this.#now() - this.#openedAt >= this.#coolDownMs ? 'half-open' : 'open';
  }

  /** Whether a call may go ahead now; in half-open this takes one of the trial slots. */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.#trials >= this.#halfOpenMax) return false;
    this.#trials += 1;
    return true;
  }

  recordSuccess(): void {
    this.#failures = 0;
    this.#openedAt = undefined;
    this.#trials = 0;
  }

  recordFailure(): void {
    if (this.#openedAt !== undefined) {
      // A failed trial (or a late failure while open) starts a fresh cool-down.
      this.#openedAt = this.#now();
      this.#trials = 0;
      return;
    }
    this.#failures += 1;
    if (this.#failures >= this.#threshold) this.#openedAt = this.#now();
  }

  /**
   * Ends the cool-down of an open breaker now, so the next call is the half-open trial: for a sign
   * that the dependency is back (a fresh connection), which is worth one trial before the full wait.
   */
  endCoolDown(): void {
    if (this.state === 'open') this.#openedAt = this.#now() - this.#coolDownMs;
  }

  /**
   * Ends an admitted call whose outcome says nothing about the dependency's health (an answer that
   * is neither a success nor a failure): a half-open trial slot is given back, nothing else changes.
   */
  recordNeutral(): void {
    if (this.#trials > 0) this.#trials -= 1;
  }

  /** Runs `fn` if admitted, recording its outcome; throws `CircuitOpenError` when not admitted. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.tryAcquire()) throw new CircuitOpenError(this.name);
    try {
      const value = await fn();
      this.recordSuccess();
      return value;
    } catch (error) {
      this.recordFailure();
      throw error;
    }
  }
}
