import { type Params } from 'nestjs-pino';
import { clipText, describeError, readMember, redactObject, redactSecrets, REDACTED } from './redact';

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
 * nestjs-pino options for both apps: JSON lines with `service`, and secrets removed twice: by path
 * (pino's redaction) and by pattern (DSN userinfo, password assignments, bearer tokens, PEM blocks,
 * secret-named keys at any depth). The request side (request id, the request's logging scope, the
 * `request completed` line) is PlatformModule's, in Fastify hooks built from these same options:
 * nestjs-pino's own middleware is switched off, as it ran pino-http through Nest's middleware layer
 * and built two child loggers for every request whether anything was logged or not.
 */
export function loggerModuleOptions(options: LoggerOptions): Params {
  return {
    pinoHttp: [
      {
        level: options.level,
        base: { service: options.service },
        messageKey: 'msg',
        redact: { paths: REDACT_PATHS, censor: REDACTED },
        serializers: {
          // Method and path only: query strings and headers can carry tokens.
          req: (req: { id?: unknown; method?: string; url?: string }) => ({ id: req.id, method: req.method, url: redactSecrets((req.url ?? '').split('?')[0] ?? '') }),
          // The wrapped response reports null until headers are sent; the raw one knows the status.
          res: (res: { statusCode?: number | null; raw?: { statusCode?: number } }) => ({ statusCode: res.statusCode ?? res.raw?.statusCode }),
          err: serializeError,
        },
        formatters: {
          log: (object: Record<string, unknown>) => {
            const clean = redactObject(object);
            return typeof clean === 'object' && clean !== null && !Array.isArray(clean) ? (clean as Record<string, unknown>) : { detail: clean };
          },
        },
        hooks: {
          // Message strings and interpolation arguments go through the same pattern pass.
          logMethod(args: unknown[], method: (...a: unknown[]) => void) {
            method.apply(this, withCleanErrorMessage(args.map((arg) => (typeof arg === 'string' ? clipText(arg) : arg))));
          },
        },
      },
      options.destination ?? process.stdout,
    ],
    forRoutes: [],
  };
}

/**
 * The `err` serializer. It never throws: pino calls it while writing the line, so a throw would lose
 * the line and fail the caller (the error filter, and with it the answer). It sees what
 * `formatters.log` made of the value (already a plain, redacted object), which pino-http's wrapper
 * has passed through pino's standard error serializer when it had a string `message`: that wrapper
 * calls every object's type `Object` and keeps the original in `raw`, so `raw` is read first.
 */
export function serializeError(value: unknown): Record<string, unknown> {
  if (typeof value === 'object' && value !== null) {
    const raw = readMember(value, 'raw');
    if (raw.ok && typeof raw.value === 'object' && raw.value !== null) return describeError(raw.value);
  }
  return describeError(value);
}

/**
 * Without a message, pino uses the message of the logged Error (or of its `err` field) as it is,
 * after this hook has run: give it the cleaned one instead (Nest's exception handler logs that way).
 */
function withCleanErrorMessage(args: unknown[]): unknown[] {
  // nestjs-pino passes `(object, undefined)` for Nest's `error(message, stack)` calls.
  if (args.length > 2 || args[1] !== undefined) return args;
  const [first] = args;
  try {
    const error = first instanceof Error ? first : typeof first === 'object' && first !== null ? (first as { err?: unknown }).err : undefined;
    if (!(error instanceof Error)) return args;
    const message = describeError(error).message;
    return [first, typeof message === 'string' ? message : ''];
  } catch {
    return args; // a throwing getter or proxy: formatters.log describes it safely
  }
}
