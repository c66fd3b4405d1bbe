import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type TenantRecord, TenantsFileError, type TenantsFile } from '../tenants-file';
import { type Answer, route, type TenantStore } from './routes';

export interface TenantManagerTestServerOptions {
  /** The API key and the initial tenants (a parsed tenants file). */
  readonly tenants: TenantsFile;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** Defaults to 127.0.0.1. */
  readonly host?: string;
}

/** One request as the server saw it, so tests can count calls (cache hits make none). */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly url: string;
  readonly apiKeyValid: boolean;
}

export interface TenantManagerTestServer {
  /** `http://host:port`, the value for the tenant-manager URL. */
  readonly url: string;
  readonly port: number;
  /** Adds or replaces a tenant, as `PUT /_test/tenants/<id>` does. */
  putTenant(id: string, record: TenantRecord): void;
  deleteTenant(id: string): boolean;
  /**
   * Answers every authenticated `/v1` request with this status and an error body until called with
   * `undefined`: a 5xx makes the tenant-manager look broken without stopping it.
   */
  failWith(status: number | undefined): void;
  requests(): readonly RecordedRequest[];
  /** Stops listening and drops open connections, keep-alive ones included. */
  close(): Promise<void>;
}

/** A PUT body larger than this is refused; tenant configs are a few hundred bytes. */
const MAX_BODY_BYTES = 1024 * 1024;

/** Starts the server. Resolves once it is listening. State lives in memory only. */
export async function startTenantManagerTestServer(options: TenantManagerTestServerOptions): Promise<TenantManagerTestServer> {
  const host = options.host ?? '127.0.0.1';
  const { apiKey } = options.tenants;
  const tenants = new Map(Object.entries(options.tenants.tenants));
  const store: TenantStore = {
    get: (id) => tenants.get(id),
    entries: () => tenants.entries(),
    put: (id, record) => {
      const existed = tenants.has(id);
      tenants.set(id, record);
      return existed ? 'replaced' : 'created';
    },
    delete: (id) => tenants.delete(id),
  };
  const recorded: RecordedRequest[] = [];
  let failure: number | undefined;

  const answer = async (req: IncomingMessage): Promise<Answer> => {
    const url = new URL(req.url ?? '/', 'http://test.invalid');
    const apiKeyValid = req.headers['x-api-key'] === apiKey;
    recorded.push({ method: req.method ?? 'GET', url: req.url ?? '/', apiKeyValid });
    // The real server's answer to a bad key is unknown; the client treats any such 4xx alike.
    if (!apiKeyValid) return { status: 401, body: { code: 'TS-UNAUTHORIZED', error: 'invalid or missing API key' } };
    let segments: string[];
    try {
      segments = url.pathname.split('/').filter((s) => s !== '').map((s) => decodeURIComponent(s));
    } catch {
      return { status: 400, body: { code: 'TS-BAD-REQUEST', error: 'malformed path' } };
    }
    if (failure !== undefined && segments[0] === 'v1') return { status: failure, body: { code: 'TS-INJECTED-FAILURE', error: 'injected failure' } };
    return route({ method: req.method ?? 'GET', segments, query: url.searchParams, body: () => readJson(req) }, store);
  };

  const server = createServer((req, res) => {
    answer(req).then((a) => send(res, a), () => send(res, { status: 500, body: { code: 'TS-INTERNAL', error: 'internal error' } }));
  });
  await listen(server, options.port ?? 0, host);
  // A failed accept after listening loses that one client; without a listener it would crash the run.
  server.on('error', () => undefined);
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('tenant-manager test server: no TCP address');
  let closing: Promise<void> | undefined;

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    port: address.port,
    putTenant: (id, record) => void store.put(id, record),
    deleteTenant: (id) => store.delete(id),
    failWith: (status) => {
      failure = status;
    },
    requests: () => [...recorded],
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function send(res: ServerResponse, answer: Answer): void {
  const body = answer.body === undefined ? undefined : JSON.stringify(answer.body);
  res.writeHead(answer.status, { ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...answer.headers });
  res.end(body);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new TenantsFileError(`body must be at most ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new TenantsFileError('body must be a JSON object');
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
