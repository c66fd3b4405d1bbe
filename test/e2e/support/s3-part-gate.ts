import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** What the gate saw of the multipart calls, in the order they came. */
export type MultipartCall = 'create' | 'part' | 'held-part' | 'complete' | 'abort' | 'put';

/**
 * An HTTP front for s3rver that can hold back UploadPart requests: while `holdParts` is on, a part's
 * request is read and never answered, as a stalled link to S3 would leave it, so a test can act while
 * an upload is provably in flight. Every other call passes through. It records the multipart calls
 * (create, part, complete, abort) so the test can tell what the client did about the upload.
 */
export class S3PartGate {
  #server: Server | undefined;
  #heldWaiters: (() => void)[] = [];
  readonly calls: MultipartCall[] = [];
  /** Held part requests whose client gave up (closed the connection) before any answer. */
  abandonedParts = 0;
  holdParts = false;

  constructor(private readonly upstreamPort: number) {}

  get port(): number {
    const address = this.#server?.address();
    if (!address || typeof address === 'string') throw new Error('gate not started');
    return address.port;
  }

  async start(): Promise<void> {
    this.#server = createServer((req, res) => this.#handle(req, res));
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
  }

  /** Resolves once a part request is being held. */
  partHeld(): Promise<void> {
    if (this.calls.includes('held-part')) return Promise.resolve();
    return new Promise((resolve) => this.#heldWaiters.push(resolve));
  }

  async close(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://gate');
    const call = kindOf(req.method ?? '', url.searchParams);
    if (call === 'part' && this.holdParts) {
      this.calls.push('held-part');
      req.resume();
      res.on('close', () => {
        if (!res.writableEnded) this.abandonedParts += 1;
      });
      for (const waiter of this.#heldWaiters.splice(0)) waiter();
      return;
    }
    if (call) this.calls.push(call);
    // No keep-alive agent: a pooled socket to s3rver would outlive the gate and hold s3rver's close.
    const upstream = request({ host: '127.0.0.1', port: this.upstreamPort, method: req.method, path: req.url, headers: req.headers, agent: false }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  }
}

function kindOf(method: string, query: URLSearchParams): MultipartCall | undefined {
  if (method === 'POST' && query.has('uploads')) return 'create';
  if (method === 'PUT' && query.has('partNumber')) return 'part';
  if (method === 'POST' && query.has('uploadId')) return 'complete';
  if (method === 'DELETE' && query.has('uploadId')) return 'abort';
  if (method === 'PUT') return 'put';
  return undefined;
}
