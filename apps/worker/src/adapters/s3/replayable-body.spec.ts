import { Readable } from 'node:stream';
import { reopenBodyOnRetry } from './replayable-body';

describe(reopenBodyOnRetry.name, () => {
  it('keeps the first stream for the first attempt and opens a fresh one for each retry', async () => {
    let opened = 0;
    const body = { length: 3, open: () => Readable.from([Buffer.from(`v${++opened}`)]) };
    let middleware: ((next: (args: { request: { body?: unknown } }) => Promise<unknown>) => (args: { request: { body?: unknown } }) => Promise<unknown>) | undefined;
    let options: unknown;
    const command = {
      middlewareStack: {
        addRelativeTo: (m: typeof middleware, o: unknown) => {
          middleware = m;
          options = o;
        },
      },
    };
    reopenBodyOnRetry(command as never, body);
    expect(options).toMatchObject({ relation: 'after', toMiddleware: 'retryMiddleware' });

    const first = body.open();
    const request = { body: first as unknown };
    const seen: unknown[] = [];
    const handler = middleware!((args) => {
      seen.push(args.request.body);
      return Promise.resolve(undefined);
    });
    await handler({ request });
    await handler({ request });
    await handler({ request });
    expect(seen[0]).toBe(first);
    expect(first.destroyed).toBe(true);
    expect(new Set(seen).size).toBe(3);
    expect(opened).toBe(3);
  });
});
