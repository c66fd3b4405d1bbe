import type { Readable } from 'node:stream';
import type { FinalizeRequestMiddleware, MiddlewareStack } from '@smithy/types';
import type { ReplayableBody } from '../../ports/result-store.port';

/**
 * Gives every attempt the SDK makes a fresh stream of `body`. The command is built with one stream;
 * the SDK's own retry would resend that same, already consumed, stream, so from the second attempt
 * on this middleware (placed after the retry step) swaps in a new one read from the start.
 *
 * With the SDK installed today this is a safeguard only: its retry middleware gives up at once on a
 * request whose body is a stream ("non-retryable streaming request"), so streamed uploads are retried
 * by the Worker's uploader (which honours `Retry-After`), never by the SDK.
 */
export function reopenBodyOnRetry<I extends object, O extends object>(command: { readonly middlewareStack: MiddlewareStack<I, O> }, body: ReplayableBody): void {
  let attempts = 0;
  const reopen: FinalizeRequestMiddleware<I, O> = (next) => (args) => {
    if (attempts++ > 0) {
      const request = args.request as { body?: unknown };
      (request.body as Readable | undefined)?.destroy();
      request.body = body.open();
    }
    return next(args);
  };
  command.middlewareStack.addRelativeTo(
    reopen,
    { relation: 'after', toMiddleware: 'retryMiddleware', name: 'fetcherReopenBody' },
  );
}
