/**
 * A loopback HTTP CONNECT proxy that lets oracledb's thin driver verify the original hostname
 * while it connects to the checked address.
 *
 * thin mode matches the server certificate against the descriptor's HOST and resolves HOST itself
 * (dns.promises.lookup), so neither "HOST = checked IP" (the match then sees the IP) nor
 * "HOST = name" (a second, unchecked resolution) keeps both promises. With HTTPS_PROXY set, thin
 * mode skips its own lookup and sends `CONNECT <name>:<port>`: this proxy answers exactly that
 * request by dialling the checked address, and refuses any other. TLS stays end to end between
 * the driver and the database; the proxy only relays bytes.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export interface PinnedRoute {
  /** The only `CONNECT` authority accepted: the original hostname and the datasource port. */
  readonly hostname: string;
  readonly port: number;
  /** Where that authority is dialled: the address host safety checked. */
  readonly address: string;
  readonly family: 4 | 6;
}

export class PinningProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Duplex>();
  #port = 0;

  private constructor(route: PinnedRoute, connect: typeof netConnect) {
    this.#server = createServer((_req, res) => {
      res.writeHead(405).end();
    });
    this.#server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
      this.#track(client);
      if (!sameAuthority(req.url, route)) {
        client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
        return;
      }
      const upstream: Socket = connect({ host: route.address, port: route.port, family: route.family });
      this.#track(upstream);
      upstream.once('connect', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      const drop = (): void => {
        client.destroy();
        upstream.destroy();
      };
      upstream.on('error', drop);
      client.on('error', drop);
      upstream.on('close', () => client.destroy());
      client.on('close', () => upstream.destroy());
    });
    this.#server.on('clientError', (_error, socket) => socket.destroy());
  }

  /** Listens on an ephemeral loopback port. */
  static async start(route: PinnedRoute, connect: typeof netConnect = netConnect): Promise<PinningProxy> {
    const proxy = new PinningProxy(route, connect);
    await new Promise<void>((resolve, reject) => {
      proxy.#server.once('error', reject);
      proxy.#server.listen(0, '127.0.0.1', () => {
        proxy.#server.off('error', reject);
        resolve();
      });
    });
    const address = proxy.#server.address();
    proxy.#port = typeof address === 'object' && address !== null ? address.port : 0;
    return proxy;
  }

  get host(): string {
    return '127.0.0.1';
  }

  get port(): number {
    return this.#port;
  }

  /** Stops listening and cuts every relayed connection. Idempotent. */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
    if (!this.#server.listening) return;
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #track(socket: Duplex): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
  }
}

function sameAuthority(url: string | undefined, route: PinnedRoute): boolean {
  if (url === undefined) return false;
  const colon = url.lastIndexOf(':');
  if (colon < 0) return false;
  const host = url.slice(0, colon).replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  const port = Number(url.slice(colon + 1));
  return host === route.hostname.replace(/\.$/, '').toLowerCase() && port === route.port;
}
