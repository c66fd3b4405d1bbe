import type { Socket } from 'node:net';

/** How a connection's bytes are slowed: a fixed delay, a random spread around it, a rate limit. */
export interface Shape {
  /** Added to every chunk, each way. */
  readonly latencyMs?: number;
  /** Each chunk's delay varies by up to this much either side of `latencyMs` (order is kept). */
  readonly jitterMs?: number;
  /** Each direction of the connection carries at most this many bytes a second. */
  readonly bytesPerSecond?: number;
}

/** Above this many queued bytes a direction stops reading its source, so a slow link does not buffer without bound. */
const MAX_QUEUED_BYTES = 1 << 20;

interface Queued {
  readonly chunk: Buffer;
  readonly at: number;
}

/** One direction of a link: reads `from`, writes `to`, with the link's delay, rate and faults. */
class Direction {
  readonly #queue: Queued[] = [];
  #queuedBytes = 0;
  #lastAt = 0;
  #timer?: NodeJS.Timeout;
  #ended = false;
  /** Bytes read since the counter was last reset (the link's `resetAfterBytes`). */
  carried = 0;

  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
    private readonly link: Link,
  ) {
    from.on('data', (chunk: Buffer) => this.#read(chunk));
    from.on('end', () => {
      this.#ended = true;
      this.#flush();
    });
  }

  #read(chunk: Buffer): void {
    if (this.link.stalled) {
      this.link.lostBytes = true;
      return;
    }
    this.carried += chunk.length;
    if (this.link.afterRead(this)) return;
    const { latencyMs = 0, jitterMs = 0, bytesPerSecond } = this.link.current;
    // Slices small enough that a rate limit releases bytes smoothly (about 20 slices a second).
    const slice = bytesPerSecond ? Math.max(512, Math.floor(bytesPerSecond / 20)) : chunk.length;
    for (let offset = 0; offset < chunk.length; offset += slice) {
      const piece = chunk.subarray(offset, offset + slice);
      const now = Date.now();
      const spread = jitterMs > 0 ? (Math.random() * 2 - 1) * jitterMs : 0;
      const earliest = Math.max(now + Math.max(0, latencyMs + spread), this.#lastAt);
      const at = earliest + (bytesPerSecond ? (piece.length * 1000) / bytesPerSecond : 0);
      this.#lastAt = at;
      this.#queue.push({ chunk: piece, at });
      this.#queuedBytes += piece.length;
    }
    if (this.#queuedBytes > MAX_QUEUED_BYTES) this.from.pause();
    this.#flush();
  }

  #flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const now = Date.now();
    while (this.#queue.length > 0 && this.#queue[0].at <= now) {
      const { chunk } = this.#queue.shift()!;
      this.#queuedBytes -= chunk.length;
      if (!this.to.destroyed) this.to.write(chunk);
    }
    if (this.#queuedBytes <= MAX_QUEUED_BYTES && this.from.isPaused()) this.from.resume();
    if (this.#queue.length > 0) this.#timer = setTimeout(() => this.#flush(), this.#queue[0].at - now);
    else if (this.#ended && !this.to.destroyed) this.to.end();
  }

  stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#queue.length = 0;
  }
}

/** A forwarded connection: the client's socket and the one to the service, and the faults on them. */
export class Link {
  readonly #upward: Direction;
  readonly #downward: Direction;
  #closed = 0;
  #closeListeners: (() => void)[] = [];
  #resetAfter?: number;
  current: Shape = {};
  stalled = false;
  /** Bytes were dropped while half-open: the streams have a gap. */
  lostBytes = false;

  constructor(
    readonly client: Socket,
    readonly upstream: Socket,
  ) {
    this.#upward = new Direction(client, upstream, this);
    this.#downward = new Direction(upstream, client, this);
    for (const socket of [client, upstream]) {
      socket.on('error', () => undefined);
      socket.on('close', (hadError: boolean) => {
        // A side that failed takes the other down at once; a side that ended is ended by its Direction after the queue drains.
        const other = socket === client ? upstream : client;
        if (hadError) this.#destroy(other);
        this.#closed += 1;
        if (this.#closed === 2) {
          this.#upward.stop();
          this.#downward.stop();
          for (const listener of this.#closeListeners) listener();
        }
      });
    }
    // A connect to the service that fails ends the client's connection too.
    upstream.on('error', () => this.#destroy(client));
  }

  onClose(listener: () => void): void {
    this.#closeListeners.push(listener);
  }

  shape(shape: Shape): void {
    this.current = { ...shape };
  }

  halfOpen(): void {
    this.stalled = true;
  }

  resetAfterBytes(bytes: number): void {
    this.#resetAfter = bytes;
    this.#downward.carried = 0;
  }

  /** Called by a direction after it read a chunk: true when the link was reset because of it. */
  afterRead(direction: Direction): boolean {
    if (direction !== this.#downward || this.#resetAfter === undefined || direction.carried < this.#resetAfter) return false;
    this.reset();
    return true;
  }

  /** Sends RST both ways and drops whatever was queued. */
  reset(): void {
    this.#upward.stop();
    this.#downward.stop();
    this.client.resetAndDestroy();
    this.upstream.resetAndDestroy();
  }

  /** Closes both sides (FIN), dropping whatever was queued. */
  close(): void {
    this.#upward.stop();
    this.#downward.stop();
    this.client.destroy();
    this.upstream.destroy();
  }

  heal(): void {
    this.current = {};
    this.stalled = false;
    this.#resetAfter = undefined;
    if (this.lostBytes) this.close();
  }

  #destroy(socket: Socket): void {
    if (!socket.destroyed) socket.destroy();
  }
}
