import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP forwarder on 127.0.0.1 that tests can cut and restore, to take a shared service (RabbitMQ)
 * away from one client without stopping it for everybody else. It also counts the connections it
 * accepted (dials, as the service behind it sees them), and can hold new ones unforwarded until the
 * test releases them, to put a client's dial at a chosen point of a race.
 */
export class TcpProxy {
  readonly #sockets = new Set<Socket>();
  readonly #held: Socket[] = [];
  #server?: Server;
  #open = true;
  #holding = false;
  /** Connections accepted since start, refused ones excluded. */
  accepted = 0;
  /** The most connections held at once; a test may reset it. */
  maxHeld = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  get port(): number {
    const address = this.#server?.address();
    if (!address || typeof address === 'string') throw new Error('proxy not listening');
    return address.port;
  }

  async start(): Promise<void> {
    const server = createServer((client) => {
      if (!this.#open) {
        client.destroy();
        return;
      }
      this.accepted += 1;
      this.#sockets.add(client);
      client.on('close', () => this.#sockets.delete(client));
      client.on('error', () => undefined);
      if (this.#holding) {
        this.#held.push(client);
        this.maxHeld = Math.max(this.maxHeld, this.#held.length);
      }
      else this.#forward(client);
    });
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
  }

  /** Connections accepted but not forwarded yet. */
  get held(): number {
    return this.#held.length;
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

  /** Drops every open connection and refuses new ones. */
  cut(): void {
    this.#open = false;
    for (const socket of this.#sockets) socket.destroy();
  }

  restore(): void {
    this.#open = true;
  }

  #forward(client: Socket): void {
    if (client.destroyed) return;
    const upstream = connect(this.targetPort, this.targetHost);
    this.#sockets.add(upstream);
    upstream.on('close', () => this.#sockets.delete(upstream));
    upstream.on('error', () => undefined);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  }

  async close(): Promise<void> {
    this.cut();
    const server = this.#server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
