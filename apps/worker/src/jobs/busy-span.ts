import type { Telemetry } from '@fetcher/platform';

/**
 * Accumulates the time spent in work done in pieces (a cursor's reads, the cipher's updates), and
 * records it as one span from the first piece to `end()`, with the time actually spent inside it as
 * `fetcher.busy_ms`. A span per piece would cost more than the piece; with tracing off this is two
 * clock reads per piece.
 */
export class BusySpan {
  #startedAt: Date | undefined;
  #busyNs = 0n;
  #ended = false;

  constructor(
    private readonly telemetry: Telemetry | null,
    private readonly name: string,
  ) {}

  /** Runs one piece synchronously and counts its time. */
  time<T>(piece: () => T): T {
    const started = process.hrtime.bigint();
    this.#startedAt ??= new Date();
    try {
      return piece();
    } finally {
      this.#busyNs += process.hrtime.bigint() - started;
    }
  }

  /** Awaits one piece and counts its time. */
  async timeAsync<T>(piece: () => Promise<T>): Promise<T> {
    const started = process.hrtime.bigint();
    this.#startedAt ??= new Date();
    try {
      return await piece();
    } finally {
      this.#busyNs += process.hrtime.bigint() - started;
    }
  }

  get busyMs(): number {
    return Number(this.#busyNs) / 1e6;
  }

  /** Emits the span (once, and only if a piece ran and tracing is on). */
  end(): void {
    if (this.#ended || !this.telemetry || !this.#startedAt) return;
    this.#ended = true;
    this.telemetry.tracer.startSpan(this.name, { startTime: this.#startedAt, attributes: { 'fetcher.busy_ms': this.busyMs } }).end();
  }
}
