import { type EngineError } from '@fetcher/engine';
import { hostNotAllowed } from '../common/errors';
import { runConnectStage } from './connect-stage';

describe('runConnectStage', () => {
  const signal = new AbortController().signal;

  it('returns what the work returns', async () => {
    await expect(runConnectStage(signal, 1_000, async () => 'ok', async () => undefined)).resolves.toBe('ok');
  });

  it('turns a driver failure into a connect error that hides it, after cleaning up', async () => {
    const cleanup = jest.fn(async () => undefined);
    const cause = new Error('password authentication failed for user "u" (postgres://u:pw@db/x)');
    const error = (await runConnectStage(signal, 1_000, async () => Promise.reject(cause), cleanup).catch((e: unknown) => e)) as EngineError;
    expect(error).toMatchObject({ category: 'connect', message: 'failed to connect to datasource' });
    expect(error.cause).toBe(cause);
    expect(JSON.stringify(error) + String(error)).not.toContain('pw@');
    expect(cleanup).toHaveBeenCalledTimes(1);
  });

  it('passes the guard refusals through', async () => {
    await expect(runConnectStage(signal, 1_000, async () => Promise.reject(hostNotAllowed()), async () => undefined)).rejects.toMatchObject({
      category: 'validation',
      message: 'datasource host is not allowed',
    });
  });

  it("reports the caller's abort as an abort, even when the driver failed meanwhile", async () => {
    const controller = new AbortController();
    const work = async () => {
      controller.abort();
      throw new Error('socket hang up');
    };
    await expect(runConnectStage(controller.signal, 1_000, work, async () => undefined)).rejects.toMatchObject({ category: 'canceled' });
  });

  it('keeps a cleanup failure from hiding the outcome', async () => {
    const failingCleanup = async () => Promise.reject(new Error('close failed'));
    await expect(runConnectStage(signal, 1_000, async () => Promise.reject(new Error('x')), failingCleanup)).rejects.toMatchObject({
      category: 'connect',
    });
  });
});
