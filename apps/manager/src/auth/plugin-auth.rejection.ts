import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';

/**
 * An authorization answer that is not one of the API's error bodies: plain-text 401/403/500, or the
 * authorization service's own error body passed through. Rendered only by `PluginAuthRejectionFilter`.
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

/**
 * Writes rejections exactly as the contract shows them. Bound to each authorized route by
 * `@Authorize`, so it takes precedence over the app-wide error filter for this one exception type.
 */
@Catch(PluginAuthRejection)
export class PluginAuthRejectionFilter implements ExceptionFilter<PluginAuthRejection> {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(rejection: PluginAuthRejection, host: ArgumentsHost): void {
    const adapter = this.adapterHost.httpAdapter;
    const res: unknown = host.switchToHttp().getResponse();
    adapter.setHeader(res, 'Content-Type', rejection.contentType);
    adapter.reply(res, rejection.body, rejection.status);
  }
}
