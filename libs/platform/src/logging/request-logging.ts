import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type Params } from 'nestjs-pino';
import { storage } from 'nestjs-pino/storage';
import { pinoHttp } from 'pino-http';
import { type Logger } from 'pino';

/**
 * The request's logging scope, in the place where nestjs-pino's `PinoLogger` looks for it. The
 * child logger carrying `req` and `requestId` is built on first use: serialising and redacting its
 * bindings is the dearest part of logging a request, and most requests log nothing at the
 * configured level.
 */
class RequestLogScope {
  #requestLogger: Logger | undefined;
  #assigned: Logger | undefined;

  constructor(
    private readonly root: Logger,
    private readonly req: IncomingMessage & { id?: unknown },
    private readonly requestId: string,
  ) {}

  /** The logger the request's own lines use (what `PinoLogger.assign` extends). */
  get logger(): Logger {
    return this.#assigned ?? this.requestLogger();
  }

  set logger(value: Logger) {
    this.#assigned = value;
  }

  /** The logger of the completion line: never the assigned one, as with pino-http. */
  requestLogger(): Logger {
    if (this.#requestLogger === undefined) {
      this.req.id = this.requestId;
      this.#requestLogger = this.root.child({ req: this.req, requestId: this.requestId });
    }
    return this.#requestLogger;
  }
}

export interface RequestLogEntry {
  readonly scope: RequestLogScope;
  readonly startedAt: number;
}

/**
 * Request logging for the apps' Fastify servers, in place of pino-http's middleware (which built two
 * child loggers for every request, logged or not). The lines are the same: the logger is the one
 * pino-http builds from the same options (its wrapped serializers included), lines written while a
 * request is handled carry `req` and `requestId`, and each answer is logged at `info` as
 * `request completed` (or `request errored` from status 500 on) with `res` and `responseTime`.
 */
export class RequestLogging {
  private readonly root: Logger;
  private readonly completionEnabled: boolean;

  constructor(params: Params) {
    const pinoHttpParams = params.pinoHttp ?? {};
    // The same construction nestjs-pino hands to pino-http; only the middleware goes unused.
    const middleware = Array.isArray(pinoHttpParams) ? pinoHttp(pinoHttpParams[0], pinoHttpParams[1]) : pinoHttp(pinoHttpParams as never);
    this.root = middleware.logger;
    this.completionEnabled = this.root.isLevelEnabled('info');
  }

  /** Opens the request's scope and runs `next` (the rest of the request's processing) inside it. */
  run(req: IncomingMessage, requestId: string, next: () => void): RequestLogEntry {
    const entry: RequestLogEntry = { scope: new RequestLogScope(this.root, req, requestId), startedAt: Date.now() };
    storage.run(entry.scope, next);
    return entry;
  }

  /** Writes the completion line of an answered (or abandoned) request. */
  complete(entry: RequestLogEntry, res: ServerResponse): void {
    if (!this.completionEnabled) return;
    const responseTime = Date.now() - entry.startedAt;
    const log = entry.scope.requestLogger();
    if (res.statusCode >= 500) {
      log.info({ res, err: new Error(`failed with status code ${res.statusCode}`), responseTime }, 'request errored');
    } else {
      log.info({ res, responseTime }, 'request completed');
    }
  }
}
