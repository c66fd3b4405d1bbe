import { type CanActivate, type ExecutionContext, Injectable, type NestMiddleware } from '@nestjs/common';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { MetricsRegistry } from './metrics-registry';

// The matched route template, stored on the raw request so the timing middleware can label by route
// (bounded cardinality) rather than by URL. Unmatched requests are labelled `unmatched`.
const ROUTE = Symbol('fetcher.route');

/** The route template recorded for a raw request, or `unmatched`. */
export function routeLabelOf(req: IncomingMessage): string {
  return (req as IncomingMessage & { [ROUTE]?: string })[ROUTE] ?? 'unmatched';
}

/** Times every HTTP request from arrival to the last byte of the answer. */
@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware {
  constructor(private readonly metrics: MetricsRegistry) {}

  use(req: IncomingMessage, res: ServerResponse, next: () => void): void {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const labels = { method: req.method ?? 'GET', route: routeLabelOf(req), status_code: String(res.statusCode) };
      this.metrics.httpRequestDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
      this.metrics.httpRequests.inc(labels);
    });
    next();
  }
}

/** Runs before every route's own guards (an app-wide guard) and only records the route; it never refuses. */
@Injectable()
export class RouteLabelGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<{
      raw?: IncomingMessage; routeOptions?: { url?: string }; route?: { path?: string }; baseUrl?: string;
    }>();
    const template = req.routeOptions?.url ?? (req.route?.path === undefined ? undefined : `${req.baseUrl ?? ''}${req.route.path}`);
    const raw = (req.raw ?? req) as { [ROUTE]?: string };
    if (template !== undefined) raw[ROUTE] = template;
    return true;
  }
}
