import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type Params } from 'nestjs-pino';
import { redactObject, redactSecrets, REDACTED } from './redact';
import { REQUEST_ID_HEADER, requestIdFrom } from './request-id';

export interface LoggerOptions {
  readonly level: string;
  readonly service: 'manager' | 'worker';
  /** Where lines go; stdout when unset (tests pass a stream to capture them). */
  readonly destination?: NodeJS.WritableStream;
}

// Fixed paths, redacted by pino itself before any formatting; the pattern pass below catches the rest.
const REDACT_PATHS = [
  'req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]', 'res.headers["set-cookie"]',
  'password', '*.password', '*.*.password', 'ssl.ca', 'ssl.cert', 'ssl.key', '*.ssl.ca', '*.ssl.cert', '*.ssl.key',
  'authorization', '*.authorization', 'secrets', '*.secrets', 'keys', '*.keys',
];

/**
 * nestjs-pino options for both apps: JSON lines with `service`, the request id accepted from
 * `X-Request-Id` or generated (UUIDv7) and echoed in the response, and secrets removed twice: by
 * path (pino's redaction) and by pattern (DSN userinfo, password assignments, bearer tokens, PEM
 * blocks, secret-named keys at any depth). On Fastify, also pass `fastifyRequestIdOptions` to the
 * adapter, or Fastify's own ids win.
 */
export function loggerModuleOptions(options: LoggerOptions): Params {
  return {
    pinoHttp: [
      {
        level: options.level,
        base: { service: options.service },
        messageKey: 'msg',
        redact: { paths: REDACT_PATHS, censor: REDACTED },
        genReqId: (req: IncomingMessage, res: ServerResponse) => {
          const id = requestIdFrom(req.headers['x-request-id']);
          res.setHeader(REQUEST_ID_HEADER, id);
          return id;
        },
        customProps: (req: IncomingMessage & { id?: unknown }) => ({ requestId: req.id }),
        serializers: {
          // Method and path only: query strings and headers can carry tokens.
          req: (req: { id?: unknown; method?: string; url?: string }) => ({ id: req.id, method: req.method, url: redactSecrets((req.url ?? '').split('?')[0] ?? '') }),
          // The wrapped response reports null until headers are sent; the raw one knows the status.
          res: (res: { statusCode?: number | null; raw?: { statusCode?: number } }) => ({ statusCode: res.statusCode ?? res.raw?.statusCode }),
          err: (err: Error) => ({ type: err.name, message: redactSecrets(err.message) }),
        },
        formatters: {
          log: (object: Record<string, unknown>) => redactObject(object) as Record<string, unknown>,
        },
        hooks: {
          // Message strings and interpolation arguments go through the same pattern pass.
          logMethod(args: unknown[], method: (...a: unknown[]) => void) {
            method.apply(this, args.map((arg) => (typeof arg === 'string' ? redactSecrets(arg) : arg)));
          },
        },
      },
      options.destination ?? process.stdout,
    ],
  };
}
