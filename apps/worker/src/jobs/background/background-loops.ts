import type { OnApplicationShutdown } from '@nestjs/common';
/** One run of a background pass; it never throws. */
export interface BackgroundPass {
  runOnce(): Promise<unknown>;
}

export const REPAIR_INTERVAL_MS = 30_000;

/** Runs the repairer (now, then every 30 s) and the lease reaper (every reaper interval) until stopped. */
export class BackgroundLoops implements OnApplicationShutdown {
  readonly #timers: NodeJS.Timeout[] = [];
  #stopped = false;

  constructor(
    private readonly repairer: BackgroundPass,
    private readonly reaper: BackgroundPass,
    private readonly reaperIntervalMs: number,
  ) {}

  start(): void {
    void this.repairer.runOnce();
    this.#every(REPAIR_INTERVAL_MS, () => this.repairer.runOnce());
    this.#every(this.reaperIntervalMs, () => this.reaper.runOnce());
  }

  onApplicationShutdown(): void {
    this.stop();
  }

  stop(): void {
    this.#stopped = true;
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers.length = 0;
  }

  #every(ms: number, pass: () => Promise<unknown>): void {
    let running = false;
    const timer = setInterval(() => {
      if (running || this.#stopped) return;
      running = true;
      void pass().finally(() => (running = false));
    }, ms);
    timer.unref();
    this.#timers.push(timer);
  }
}
