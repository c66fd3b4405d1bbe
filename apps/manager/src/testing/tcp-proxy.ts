import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP forwarder on 127.0.0.1 that tests can cut and restore, to take a shared service (RabbitMQ)
 * away from one client without stopping it for everybody else.
 */
export class TcpProxy {
  readonly #sockets = new Set<Socket>();
  #server?: Server;
  #open = true;

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
      const upstream = connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
    });
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
  }

  /** Drops every open connection and refuses new ones. */
  cut(): void {
    this.#open = false;
    for (const socket of this.#sockets) socket.destroy();
  }

  restore(): void {
    this.#open = true;
  }

  async close(): Promise<void> {
    this.cut();
    const server = this.#server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
