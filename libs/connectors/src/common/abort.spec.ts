import { abortError, raceAbort, statementTimeout, throwIfAborted } from './abort';

describe('abort helpers', () => {
  it('reports a plain abort as canceled and a timeout reason as timeout', () => {
    const canceled = new AbortController();
    canceled.abort();
    expect(abortError(canceled.signal)).toMatchObject({ category: 'canceled', message: 'execution canceled' });
    const timedOut = new AbortController();
    timedOut.abort(new DOMException('late', 'TimeoutError'));
    expect(abortError(timedOut.signal)).toMatchObject({ category: 'timeout', message: 'execution exceeded its deadline' });
    expect(() => throwIfAborted(canceled.signal)).toThrow(expect.objectContaining({ category: 'canceled', message: 'execution canceled' }));
    expect(() => throwIfAborted(new AbortController().signal)).not.toThrow();
  });

  it('settles with the work when the signal stays quiet', async () => {
    const onAbort = jest.fn();
    await expect(raceAbort(Promise.resolve(7), new AbortController().signal, onAbort)).resolves.toBe(7);
    await expect(raceAbort(Promise.reject(new Error('driver')), new AbortController().signal, onAbort)).rejects.toThrow('driver');
    expect(onAbort).not.toHaveBeenCalled();
  });

  it('rejects with the abort and stops the work when the signal aborts first', async () => {
    const controller = new AbortController();
    const onAbort = jest.fn();
    let fail!: (error: Error) => void;
    const work = new Promise<number>((_resolve, reject) => (fail = reject));
    const raced = raceAbort(work, controller.signal, onAbort);
    controller.abort();
    await expect(raced).rejects.toMatchObject({ category: 'canceled' });
    expect(onAbort).toHaveBeenCalledTimes(1);
    fail(new Error('late failure is absorbed'));
  });

  it('does not start waiting on an already aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    const onAbort = jest.fn();
    await expect(raceAbort(new Promise(() => undefined), controller.signal, onAbort)).rejects.toMatchObject({ category: 'canceled' });
    expect(onAbort).toHaveBeenCalledTimes(1);
  });

  it('names a statement timeout with a fixed text and keeps the cause hidden', () => {
    const cause = new Error('Query inactivity timeout');
    const error = statementTimeout(cause);
    expect(error).toMatchObject({ category: 'timeout', message: 'datasource query timed out' });
    expect(error.cause).toBe(cause);
    expect(JSON.stringify(error)).not.toContain('inactivity');
  });
});
