import { type CheckResult, isPassing, type ReadinessProbe, runProbe } from '@fetcher/platform';

/** What the gate opens and closes: the work queue consumer. */
export interface GatedConsumer {
  /** Starts taking deliveries. */
  resume(): Promise<void>;
  /** Stops taking deliveries; the ones in flight finish on their own. */
  pause(): Promise<void>;
}

export interface GateLog {
  log(message: string): void;
  warn(message: string): void;
}

export interface DependencyGateOptions {
  /** Between two looks while consuming: the longest a lost dependency goes unnoticed. */
  readonly openIntervalMs: number;
  /** Between two looks while paused: the longest a dependency that came back goes unnoticed. */
  readonly closedIntervalMs: number;
  /** Waits `ms` or until `signal` aborts; never rejects. Tests pass a controllable one. */
  readonly wait?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** Looks every 5 s while consuming, every second while paused. */
export const DEFAULT_GATE_INTERVALS = { openIntervalMs: 5_000, closedIntervalMs: 1_000 } as const;

/**
 * Lets the consumer take work only while every dependency a job needs answers its readiness check.
 * A Worker that consumed without its job store could only dead-letter what it took, and the jobs
 * would stay pending for ever; paused, the messages wait in the queue (or go to another Worker)
 * until the dependency is back. The first look decides whether consuming starts at all.
 */
export class DependencyGate {
  #open = false;
  #looked = false;
  #loop: Promise<void> | undefined;
  readonly #stop = new AbortController();

  constructor(
    private readonly probes: readonly ReadinessProbe[],
    private readonly consumer: GatedConsumer,
    private readonly logger: GateLog,
    private readonly options: DependencyGateOptions,
  ) {}

  /** Whether the consumer is taking deliveries. */
  get open(): boolean {
    return this.#open;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Ends the loop; the consumer stays as it is (the drain cancels it). */
  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#loop;
  }

  async #run(): Promise<void> {
    const wait = this.options.wait ?? abortableDelay;
    while (!this.#stop.signal.aborted) {
      await this.#look();
      if (this.#stop.signal.aborted) return;
      await wait(this.#open ? this.options.openIntervalMs : this.options.closedIntervalMs, this.#stop.signal);
    }
  }

  /** Every check at once, each cut at its own timeout, as `/readyz` runs them. */
  async #runAll(): Promise<Record<string, CheckResult>> {
    const results = await Promise.all(this.probes.map((probe) => runProbe(probe, this.#stop.signal)));
    return Object.fromEntries(this.probes.map((probe, i) => [probe.name, results[i]]));
  }

  async #look(): Promise<void> {
    // A check may ignore its signal for up to its timeout; stop() must not wait for that.
    const checks = await Promise.race([this.#runAll(), whenAborted(this.#stop.signal)]);
    if (!checks || this.#stop.signal.aborted) return;
    const down = Object.entries(checks).filter(([, check]) => !isPassing(check)).map(([name]) => name);
    try {
      if (down.length === 0 && !this.#open) {
        await this.consumer.resume();
        this.#open = true;
        this.logger.log(this.#looked ? 'work queue consumer resumed: dependencies are back' : 'work queue consumer started');
      } else if (down.length > 0 && (this.#open || !this.#looked)) {
        if (this.#open) await this.consumer.pause();
        this.#open = false;
        this.logger.warn(`work queue consumer paused: waiting for ${down.join(', ')}`);
      }
    } catch {
      // The channel is reconnecting: the state stays as it was, and the next look tries again.
      return;
    }
    this.#looked = true;
  }
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

function whenAborted(signal: AbortSignal): Promise<undefined> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(undefined);
    else signal.addEventListener('abort', () => resolve(undefined), { once: true });
  });
}
