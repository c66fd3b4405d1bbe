import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { routeLabelOf } from '../metrics/http-metrics';
import { PLATFORM_OPTIONS, type PlatformOptions } from '../readiness/platform-options';
import { extractTraceContext } from './telemetry';

/**
 * One server span per HTTP request, continuing the caller's `traceparent`, named after the route
 * template once it is known. Does nothing when telemetry is off.
 */
@Injectable()
export class HttpTracingMiddleware implements NestMiddleware {
  constructor(@Inject(PLATFORM_OPTIONS) private readonly options: PlatformOptions) {}

  use(req: IncomingMessage, res: ServerResponse, next: () => void): void {
    const telemetry = this.options.telemetry;
    if (!telemetry?.enabled) {
      next();
      return;
    }
    const method = req.method ?? 'GET';
    const parent = extractTraceContext(req.headers);
    const span = telemetry.tracer.startSpan(method, {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': method, 'url.path': (req.url ?? '').split('?')[0] ?? '' },
    }, parent);
    res.once('finish', () => {
      const route = routeLabelOf(req);
      span.updateName(`${method} ${route}`);
      span.setAttribute('http.route', route);
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.with(trace.setSpan(parent, span), next);
  }
}
