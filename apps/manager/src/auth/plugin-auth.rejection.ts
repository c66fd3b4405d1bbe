import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

/**
 * An authorization answer that is not one of the API's error bodies: plain-text 401/403/500, or the
 * authorization service's own error body passed through. Rendered only by `sendRejection`.
 */
export class PluginAuthRejection extends Error {
  constructor(readonly status: number, readonly contentType: string, readonly body: string) {
    super(`authorization refused with ${status}`);
    this.name = 'PluginAuthRejection';
  }

  static plain(status: number, text: string): PluginAuthRejection {
    return new PluginAuthRejection(status, 'text/plain; charset=utf-8', text);
  }
}

/** Writes a rejection exactly as the contract shows it. */
export function sendRejection(reply: FastifyReply, rejection: PluginAuthRejection): FastifyReply {
  return reply.status(rejection.status).header('content-type', rejection.contentType).send(rejection.body);
}

/**
 * Bound to each authorized Nest route by `@Authorize`, so it takes precedence over the app-wide
 * error filter for this one exception type.
 */
@Catch(PluginAuthRejection)
export class PluginAuthRejectionFilter implements ExceptionFilter<PluginAuthRejection> {
  catch(rejection: PluginAuthRejection, host: ArgumentsHost): void {
    sendRejection(host.switchToHttp().getResponse<FastifyReply>(), rejection);
  }
}
