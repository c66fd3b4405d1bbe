import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { JWK } from 'jose';

/**
 * A JSON Web Key Set on 127.0.0.1 that counts its downloads. Tests change `keys` to rotate, or set
 * `failing` to answer 503, as a key server that is down would.
 */
export class JwksServer {
  keys: JWK[] = [];
  failing = false;
  fetches = 0;
  private readonly server: Server = createServer((_req, res) => {
    this.fetches += 1;
    if (this.failing) {
      res.writeHead(503).end();
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: this.keys }));
  });

  static async start(keys: JWK[] = []): Promise<JwksServer> {
    const server = new JwksServer();
    server.keys = keys;
    server.server.listen(0, '127.0.0.1');
    await once(server.server, 'listening');
    return server;
  }

  get url(): string {
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening');
    return `http://127.0.0.1:${address.port}/.well-known/jwks.json`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}
