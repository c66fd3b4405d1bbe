import { once } from 'node:events';
import { createServer, type Server } from 'node:http';

/** An unsigned JWT: Fetcher reads its claims to name the subject; the authorization service decides. */
export function unsignedToken(claims: Record<string, unknown>): string {
  return ['{"alg":"none"}', JSON.stringify(claims)].map((p) => Buffer.from(p).toString('base64url')).join('.') + '.sig';
}

export interface AuthorizeCall {
  readonly sub: string;
  readonly resource: string;
  readonly action: string;
}

/**
 * An authorization service on 127.0.0.1 (`POST /v1/authorize`) that records every question. It
 * allows the editor role and refuses everybody else, unless a test sets `override` to answer with
 * a status and body of its own.
 */
export class FakeAuthorizationService {
  readonly asked: AuthorizeCall[] = [];
  override: { status: number; body: string } | undefined;
  private readonly server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const call = JSON.parse(body) as AuthorizeCall;
      this.asked.push(call);
      res.setHeader('content-type', 'application/json');
      if (this.override) res.writeHead(this.override.status).end(this.override.body);
      else res.end(JSON.stringify({ authorized: call.sub === 'admin/fetcher-editor-role' }));
    });
  });

  static async start(): Promise<FakeAuthorizationService> {
    const service = new FakeAuthorizationService();
    service.server.listen(0, '127.0.0.1');
    await once(service.server, 'listening');
    return service;
  }

  get url(): string {
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening');
    return `http://127.0.0.1:${address.port}`;
  }

  close(): void {
    this.server.close();
  }
}
