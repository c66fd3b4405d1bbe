import { once } from 'node:events';
import { type ClientRequest, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

const SLOW_DOWN = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><RequestId>chaos</RequestId></Error>';

/**
 * An HTTP front for s3rver that answers writes (PUT and POST: PutObject, UploadPart, the multipart
 * calls) with `503 Slow Down` and a `Retry-After` while throttling is on, as S3 does under load;
 * reads (HEAD, GET, readiness) always pass. Every throttled answer is timed, so a test can tell how
 * long a client kept trying.
 */
export class S3SlowDownFront {
  #server: Server | undefined;
  /** Requests to s3rver still open: closed with the front, or s3rver's own close would wait for them. */
  readonly #upstream = new Set<ClientRequest>();
  #remaining = 0;
  #retryAfterSec = 1;
  /** When each 503 was answered (ms since the epoch). */
  readonly throttled: number[] = [];
  /** Writes passed through to s3rver. */
  passed = 0;

  constructor(private readonly upstreamPort: number) {}

  get port(): number {
    const address = this.#server?.address();
    if (!address || typeof address === 'string') throw new Error('front not started');
    return address.port;
  }

  async start(): Promise<void> {
    this.#server = createServer((req, res) => this.#handle(req, res));
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
  }

  /** The next `count` writes (Infinity: every write until `stop()`) get 503 with `Retry-After: retryAfterSec`. */
  throttle(count: number, retryAfterSec: number): void {
    this.#remaining = count;
    this.#retryAfterSec = retryAfterSec;
  }

  stop(): void {
    this.#remaining = 0;
  }

  async close(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    server.closeAllConnections();
    for (const upstream of this.#upstream) upstream.destroy();
    server.close();
    await once(server, 'close');
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const write = req.method === 'PUT' || req.method === 'POST';
    if (write && this.#remaining > 0) {
      this.#remaining -= 1;
      // The body is read to its end first: answering mid-upload would look like a broken connection.
      req.resume();
      req.on('end', () => {
        this.throttled.push(Date.now());
        res.writeHead(503, { 'Content-Type': 'application/xml', 'Retry-After': String(this.#retryAfterSec), 'Content-Length': Buffer.byteLength(SLOW_DOWN) });
        res.end(SLOW_DOWN);
      });
      return;
    }
    if (write) this.passed += 1;
    // No keep-alive agent: a pooled socket to s3rver would outlive the front and hold s3rver's close.
    const upstream = request({ host: '127.0.0.1', port: this.upstreamPort, method: req.method, path: req.url, headers: req.headers, agent: false }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    this.#upstream.add(upstream);
    upstream.on('close', () => this.#upstream.delete(upstream));
    res.on('close', () => {
      if (!upstream.writableEnded || !res.writableFinished) upstream.destroy();
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  }
}
