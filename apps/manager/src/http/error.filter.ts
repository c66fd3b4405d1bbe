import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error';
import { Texts } from '../errors/catalogue';
import { STATUS_BY_CATEGORY } from './status-by-category';

export interface RenderedError {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Readonly<Record<string, string>>;
}

/** E8: what an uncaught failure looks like. Its detail goes to the log only. */
const INTERNAL_ERROR_BODY = Object.freeze({ title: 'Internal Server Error', message: Texts.internal, code: 'FET-0002' });

/**
 * The one place that writes error bodies. Handlers and adapters throw AppError (or let an
 * EngineError through); Nest's own exceptions (unknown route) and Fastify's (body over the limit,
 * broken framing) arrive here too, through the Fastify error handler set at bootstrap.
 */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger(ErrorFilter.name);

  catch(error: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest | undefined>();
    let rendered: RenderedError;
    try {
      rendered = this.render(error, request);
    } catch {
      // A filter that throws hands the error to Fastify, which answers its own body quoting the message.
      rendered = internalError();
    }
    sendRendered(reply, rendered);
  }

  /** `request`: the one that failed; an unknown route is answered with its method and path. */
  render(error: unknown, request?: Pick<FastifyRequest, 'method' | 'url'>): RenderedError {
    if (error instanceof AppError) return renderAppError(error);
    const status = error instanceof HttpException ? error.getStatus() : fastifyStatus(error);
    if (status === 413) return frameworkError(413, 'Request Entity Too Large');
    if (status === 400 || status === 415) {
      // The framework refused the body (framing, encoding, media type): the contract calls that a parse failure.
      return renderAppError(new AppError('validation', 'FET-0001', 'Bad Request', Texts.parse, status === 415 ? { reason: 'content_type' } : {}));
    }
    if (error instanceof HttpException) {
      // The router's own text quotes the whole URL, query string included, and query strings carry
      // tokens and keys; the contract's message names the method and the path only.
      if (status === 404 && request) return frameworkError(404, `Cannot ${request.method} ${pathOf(request.url)}`);
      return frameworkError(error.getStatus(), error.message);
    }
    try {
      this.logger.error({ err: describe(error) }, 'unhandled error');
    } catch {
      // The answer matters more than the line; the logger's serializers are built not to throw.
    }
    return internalError();
  }
}

export function sendRendered(reply: FastifyReply, rendered: RenderedError): void {
  if (reply.sent) return;
  for (const [name, value] of Object.entries(rendered.headers)) void reply.header(name, value);
  void reply.status(rendered.status).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(rendered.body));
}

function renderAppError(error: AppError): RenderedError {
  const status = STATUS_BY_CATEGORY[error.category];
  const headers = error.headers ?? {};
  if (error.dialect === 'numeric') {
    return { status, headers, body: { code: status, title: error.title, message: error.message, ...(error.reason ? { reason: error.reason } : {}) } };
  }
  if (error.errors) return { status, headers, body: { title: error.title, code: error.code, message: error.message, errors: error.errors } };
  if (error.fields) {
    const body: Record<string, unknown> = {};
    if (error.entityType) body.entityType = error.entityType;
    Object.assign(body, { title: error.title, code: error.code, message: error.message, fields: error.fields });
    return { status, headers, body };
  }
  if (error.code === 'FET-0002') return { status, headers, body: { ...INTERNAL_ERROR_BODY } };
  const extra = { ...(error.reason ? { reason: error.reason } : {}), ...(error.field ? { field: error.field } : {}) };
  return { status, headers, body: { code: error.code, title: error.title, message: error.message, ...extra } };
}

function internalError(): RenderedError {
  return { status: 500, body: { ...INTERNAL_ERROR_BODY }, headers: {} };
}

/** A request URL without its query string (and fragment). */
function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}

/** E4: the numeric status as `code` and the fixed title `request_failed`. */
export function frameworkError(status: number, message: string): RenderedError {
  return { status, headers: {}, body: { code: status, title: 'request_failed', message } };
}

function fastifyStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { statusCode, code } = error as { statusCode?: unknown; code?: unknown };
  return typeof statusCode === 'number' && typeof code === 'string' && code.startsWith('FST_') ? statusCode : undefined;
}

/** The type only: driver messages may quote a DSN and stacks may quote values, so neither is logged. */
function describe(error: unknown): Record<string, unknown> {
  try {
    if (!(error instanceof Error)) return { type: typeof error };
    const { name, category } = error as { name?: unknown; category?: unknown };
    const type = typeof name === 'string' ? name : 'Error';
    return typeof category === 'string' ? { type, category } : { type };
  } catch {
    return { type: 'unreadable' }; // a getter or proxy that throws
  }
}
