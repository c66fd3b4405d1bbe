import { type ProbeResult, type ReadinessProbe } from './probe';
import { amqpProbe, mongoProbe, redisProbe } from './probes';
import { isPassing, runProbe } from './run-probe';
import { sanitizeCheckError } from './sanitize';

const probe = (name: string, check: (signal: AbortSignal) => Promise<ProbeResult>, timeoutMs = 1_000): ReadinessProbe => ({ name, timeoutMs, check });

describe(runProbe.name, () => {
  it('reports an up probe with a non-negative integer latency', async () => {
    const result = await runProbe(probe('mongodb', () => Promise.resolve({ status: 'up', tls: false })));
    expect(result).toEqual({ status: 'up', tls: false, latency_ms: expect.any(Number) });
    expect(Number.isInteger(result.latency_ms) && result.latency_ms! >= 0).toBe(true);
  });

  it('cuts a probe that never answers at its timeout and aborts its signal', async () => {
    jest.useFakeTimers();
    try {
      let seen: AbortSignal | undefined;
      const pending = runProbe(probe('s3', (signal) => { seen = signal; return new Promise(() => undefined); }, 2_000));
      await jest.advanceTimersByTimeAsync(2_000);
      expect(await pending).toMatchObject({ status: 'down', error: 'check timeout: s3 did not answer within 2000 ms' });
      expect(seen?.aborted).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });

  it('turns an exception, even a synchronous one, into a sanitised down', async () => {
    const result = await runProbe(probe('mongodb', () => { throw new Error('auth failed for mongodb://app:hunter2@db:27017 password=hunter2'); }));
    expect(result).toMatchObject({ status: 'down', error: 'auth failed for mongodb://***@db:27017 password=***' });
  });

  it('fills the text a status requires and drops unknown keys', async () => {
    expect(await runProbe(probe('redis', () => Promise.resolve({ status: 'skipped' })))).toEqual({ status: 'skipped', reason: 'not applicable' });
    expect(await runProbe(probe('x', () => Promise.resolve({ status: 'degraded', extra: 1 } as ProbeResult)))).toEqual({ status: 'degraded', error: 'degraded', latency_ms: expect.any(Number) });
  });
});

describe(isPassing.name, () => {
  it.each([
    ['up', true], ['skipped', true], ['n/a', true], ['down', false], ['degraded', false],
  ] as const)('%s passes: %s', (status, expected) => expect(isPassing({ status })).toBe(expected));
});

describe(sanitizeCheckError.name, () => {
  it.each([
    ['connect amqp://guest:guest@rabbit:5672 refused', 'connect amqp://***@rabbit:5672 refused'],
    ['dsn host=db user=x password=s3cr3t; other', 'dsn host=db user=x password=***; other'],
    ['PWD = "a b" passwd=x&y', 'PWD =*** passwd=***&y'],
    ['multi\n  line', 'multi line'],
  ])('masks %j', (text, expected) => expect(sanitizeCheckError(text)).toBe(expected));

  it('cuts the text to 512 characters', () => expect(sanitizeCheckError('x'.repeat(600))).toHaveLength(512));
});

describe('probe factories', () => {
  const signal = new AbortController().signal;

  it.each([
    [{ breaker: 'open', connected: false }, { status: 'down', error: 'circuit breaker open', breaker_state: 'open' }],
    [{ breaker: 'half-open', connected: true }, { status: 'degraded', error: 'circuit breaker half-open', breaker_state: 'half-open' }],
    [{ breaker: 'closed', connected: true, tls: true }, { status: 'up', breaker_state: 'closed', tls: true }],
    [{ breaker: 'closed', connected: false }, { status: 'down', error: 'not connected', breaker_state: 'closed' }],
  ] as const)('amqpProbe reports %j as %j', async (state, expected) => {
    expect(await amqpProbe(() => state).check(signal)).toEqual(expected);
  });

  it('mongoProbe pings through a mongoose connection or a client', async () => {
    const command = jest.fn().mockResolvedValue({ ok: 1 });
    expect(await mongoProbe({ db: { command } }).check(signal)).toEqual({ status: 'up' });
    expect(await mongoProbe({ db: () => ({ command }) }, { tls: true }).check(signal)).toEqual({ status: 'up', tls: true });
    expect(command).toHaveBeenCalledWith({ ping: 1 }, { timeoutMS: 2_000 });
    expect(await mongoProbe({ db: undefined }).check(signal)).toEqual({ status: 'down', error: 'not connected' });
  });

  it('redisProbe is skipped without a client', async () => {
    expect(await redisProbe(undefined, { skippedReason: 'REDIS_HOST not set' }).check(signal)).toEqual({ status: 'skipped', reason: 'REDIS_HOST not set' });
    expect(redisProbe(undefined).timeoutMs).toBe(1_000);
  });
});
