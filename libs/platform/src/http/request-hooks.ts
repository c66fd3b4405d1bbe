import { type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ServerResponse } from 'node:http';
import { type RequestLogEntry, type RequestLogging } from '../logging/request-logging';
import { REQUEST_ID_HEADER, requestIdFrom } from '../logging/request-id';
import { UNMATCHED_ROUTE } from '../metrics/http-metrics';
import { type MetricsRegistry } from '../metrics/metrics-registry';
import { endServerSpan, startServerSpan } from '../telemetry/http-tracing';
import { type Telemetry } from '../telemetry/telemetry';

export interface RequestHooksOptions {
  readonly metrics: MetricsRegistry;
  /** Request lines and the request's logging scope; absent: no request logging. */
  readonly logging?: RequestLogging;
  /** When enabled, every request gets a server span. */
  readonly telemetry?: Telemetry;
}

// What the request hook hands to the response hook.
const STATE = Symbol('fetcher.request');

interface RequestState {
  /** performance.now() when the request arrived. */
  readonly startedAt: number;
  readonly res: ServerResponse;
  log: RequestLogEntry | undefined;
  span: Span | undefined;
  done: boolean;
}

type TrackedRequest = FastifyRequest & { [STATE]?: RequestState };

/**
 * What every request of a Fetcher HTTP server goes through, as two plain Fastify hooks (Nest
 * middleware would run each step through @fastify/middie and Nest's middleware proxy): the request
 * id (the caller's `X-Request-Id` when acceptable, else a UUIDv7) echoed in the response, the
 * request's logging scope and completion line, its server span, and the HTTP metrics.
 */
export function installRequestHooks(fastify: FastifyInstance, options: RequestHooksOptions): void {
  const { metrics, logging } = options;
  const telemetry = options.telemetry?.enabled ? options.telemetry : undefined;
  // Fastify assigns request ids before any hook runs; this makes its id the one the logs and the answer use.
  fastify.setGenReqId((req) => requestIdFrom(req.headers['x-request-id']));

  fastify.addHook('onRequest', (request: TrackedRequest, reply: FastifyReply, done: () => void) => {
    reply.raw.setHeader(REQUEST_ID_HEADER, request.id);
    const state: RequestState = { startedAt: performance.now(), res: reply.raw, log: undefined, span: undefined, done: false };
    request[STATE] = state;
    const next = telemetry ? () => { state.span = startServerSpan(telemetry, request.raw, done); } : done;
    if (logging) state.log = logging.run(request.raw, request.id, next);
    else next();
  });

  // Once per request: when the answer is sent, or when the caller hangs up before it (metrics
  // count answers only; the request line is written either way, as pino-http did).
  const finish = (request: TrackedRequest, answered: boolean): void => {
    const state = request[STATE];
    if (state === undefined || state.done) return;
    state.done = true;
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const method = request.raw.method ?? 'GET';
    const status = state.res.statusCode;
    if (answered) metrics.http.record(method, route, status, (performance.now() - state.startedAt) / 1000);
    if (state.span) endServerSpan(state.span, method, route, status);
    if (state.log) logging?.complete(state.log, state.res);
  };

  fastify.addHook('onResponse', (request: TrackedRequest, _reply: FastifyReply, done: () => void) => {
    finish(request, true);
    done();
  });
  fastify.addHook('onRequestAbort', (request: TrackedRequest, done: () => void) => {
    finish(request, false);
    done();
  });
}
