import { connect, createServer, type Server, type Socket } from 'node:net';
import { Link, type Shape } from './fault-proxy-link';

export type { Shape } from './fault-proxy-link';

/**
 * A TCP forwarder on 127.0.0.1 in front of one service, for tests that take the service away from
 * one client (or slow it down) without touching it for anybody else. Every fault can be put on and
 * taken off while the test runs:
 *
 * - `shape({ latencyMs, jitterMs, bytesPerSecond })`: delay and throttle every byte, both ways, on
 *   every open and future connection (or on one connection through `links`);
 * - `halfOpen()`: connections stay open but no byte passes (a black hole: the client waits);
 * - `reset()`: every open connection is reset (RST) on both sides; `resetAfterBytes(n)` does it
 *   mid-stream, once a connection has carried n more bytes from the service;
 * - `cut()`: open connections are closed and new ones closed as soon as they arrive; `refuse()`
 *   stops listening, so new dials get ECONNREFUSED;
 * - `hold()` / `releaseNewest()` / `releaseAll()`: park new connections unforwarded, to put a
 *   client's dial at a chosen point of a race.
 *
 * `heal()` takes every fault off. Connections that lost bytes while half-open are closed then
 * (their byte streams have a gap, no protocol could go on with them).
 */
export class FaultProxy {
  readonly #links = new Set<Link>();
  readonly #clients = new Set<Socket>();
  readonly #held: Socket[] = [];
  #server?: Server;
  #listenPort = 0;
  #cut = false;
  #holding = false;
  #halfOpen = false;
  #shape: Shape = {};
  #resetAfter?: number;
  /** Connections accepted since start, cut ones excluded (dials, as the service sees them). */
  accepted = 0;
  /** The most connections held at once; a test may reset it. */
  maxHeld = 0;

  constructor(
    private readonly targetPort: number,
    private readonly targetHost = '127.0.0.1',
  ) {}

  get port(): number {
    const address = this.#server?.address();
    if (address && typeof address !== 'string') return address.port;
    if (this.#listenPort !== 0) return this.#listenPort;
    throw new Error('proxy not listening');
  }

  /** The forwarded connections now open. */
  get links(): readonly Link[] {
    return [...this.#links];
  }

  /** Connections accepted but not forwarded yet. */
  get held(): number {
    return this.#held.length;
  }

  /** Listens on `port` (0, the default, picks a free one); after `close()` or `refuse()` it may listen again. */
  async start(port = this.#listenPort): Promise<void> {
    const server = createServer((client) => this.#accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.#server = server;
    this.#listenPort = (server.address() as { port: number }).port;
  }

  /** Delay and throttle: applies to the open connections and to every later one. */
  shape(shape: Shape): void {
    this.#shape = { ...shape };
    for (const link of this.#links) link.shape(shape);
  }

  /** Stops passing bytes on every connection, open and future, until `heal()`. */
  halfOpen(): void {
    this.#halfOpen = true;
    for (const link of this.#links) link.halfOpen();
  }

  /** Resets (RST) every open connection now. New connections are forwarded as usual. */
  reset(): void {
    for (const link of this.#links) link.reset();
    for (const client of this.#held.splice(0)) client.resetAndDestroy();
  }

  /** Resets each connection, open or future, once it has carried `bytes` more bytes from the service. */
  resetAfterBytes(bytes: number): void {
    this.#resetAfter = bytes;
    for (const link of this.#links) link.resetAfterBytes(bytes);
  }

  /** Closes every open connection and closes new ones as soon as they are accepted, until `heal()` or `restore()`. */
  cut(): void {
    this.#cut = true;
    for (const link of this.#links) link.close();
    for (const client of this.#clients) client.destroy();
  }

  /** Closes every connection and stops listening: new dials are refused until `heal()` listens again. */
  async refuse(): Promise<void> {
    this.cut();
    await this.#stopListening();
  }

  /** From now on, accepted connections wait unforwarded (the client sees a connected socket and no answer). */
  hold(): void {
    this.#holding = true;
  }

  /** Forwards the most recently accepted of the held connections. */
  releaseNewest(): void {
    const client = this.#held.pop();
    if (client) this.#forward(client);
  }

  /** Forwards every held connection and stops holding new ones. */
  releaseAll(): void {
    this.#holding = false;
    for (const client of this.#held.splice(0)) this.#forward(client);
  }

  /** Ends a `cut()`; other faults stay. */
  restore(): void {
    this.#cut = false;
  }

  /** Takes every fault off (listening again after `refuse()`), and closes connections that lost bytes. */
  async heal(): Promise<void> {
    this.#cut = false;
    this.#halfOpen = false;
    this.#resetAfter = undefined;
    this.#shape = {};
    for (const link of this.#links) link.heal();
    this.releaseAll();
    if (!this.#server) await this.start(this.#listenPort);
  }

  /** Closes every connection and stops listening. */
  async close(): Promise<void> {
    this.cut();
    for (const client of this.#held.splice(0)) client.destroy();
    await this.#stopListening();
    this.#cut = false;
  }

  #accept(client: Socket): void {
    client.on('error', () => undefined);
    if (this.#cut) {
      client.destroy();
      return;
    }
    this.accepted += 1;
    this.#clients.add(client);
    client.on('close', () => this.#clients.delete(client));
    if (this.#holding) {
      this.#held.push(client);
      this.maxHeld = Math.max(this.maxHeld, this.#held.length);
    }
    else this.#forward(client);
  }

  #forward(client: Socket): void {
    if (client.destroyed) return;
    const upstream = connect(this.targetPort, this.targetHost);
    const link = new Link(client, upstream);
    this.#links.add(link);
    link.onClose(() => this.#links.delete(link));
    link.shape(this.#shape);
    if (this.#halfOpen) link.halfOpen();
    if (this.#resetAfter !== undefined) link.resetAfterBytes(this.#resetAfter);
  }

  async #stopListening(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
