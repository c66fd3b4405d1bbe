import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP forwarder on 127.0.0.1 in front of a shared service. `stall()` keeps every connection open
 * but stops passing bytes, so a client waits (for a broker's confirm, say) until it is killed;
 * `restore()` drops the stalled connections and forwards again. The service itself is never touched.
 */
export class StallingProxy {
  readonly #pairs = new Set<[Socket, Socket]>();
  #server?: Server;
  #stalled = false;

  constructor(private readonly targetPort: number, private readonly targetHost = '127.0.0.1') {}

  get port(): number {
    const address = this.#server?.address();
    if (!address || typeof address === 'string') throw new Error('proxy not listening');
    return address.port;
  }

  /** Listens on `port` (0, the default, picks a free one); after `close()` it may start again. */
  async start(port = 0): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost);
      const pair: [Socket, Socket] = [client, upstream];
      this.#pairs.add(pair);
      for (const [from, to] of [[client, upstream], [upstream, client]] as const) {
        from.on('data', (chunk: Buffer) => {
          if (!this.#stalled) to.write(chunk);
        });
        from.on('error', () => undefined);
        from.on('close', () => {
          to.destroy();
          this.#pairs.delete(pair);
        });
      }
    });
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
  }

  stall(): void {
    this.#stalled = true;
  }

  restore(): void {
    for (const [client, upstream] of this.#pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.#stalled = false;
  }

  async close(): Promise<void> {
    this.restore();
    const server = this.#server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
