import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { type IncomingMessage } from 'node:http';
import { extractTraceContext, type Telemetry } from './telemetry';

/**
 * Opens the server span of an HTTP request, continuing the caller's `traceparent`, and runs `next`
 * (the rest of the request's processing) in its context.
 */
export function startServerSpan(telemetry: Telemetry, req: IncomingMessage, next: () => void): Span {
  const method = req.method ?? 'GET';
  const parent = extractTraceContext(req.headers);
  const span = telemetry.tracer.startSpan(method, {
    kind: SpanKind.SERVER,
    attributes: { 'http.request.method': method, 'url.path': (req.url ?? '').split('?')[0] ?? '' },
  }, parent);
  context.with(trace.setSpan(parent, span), next);
  return span;
}

/** Names the span after the route template once it is known, records the status and ends it. */
export function endServerSpan(span: Span, method: string, route: string, statusCode: number): void {
  span.updateName(`${method} ${route}`);
  span.setAttribute('http.route', route);
  span.setAttribute('http.response.status_code', statusCode);
  if (statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
