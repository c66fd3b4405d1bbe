import { type INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { type ProbeResult, type ReadinessProbe } from './probe';
import { readinessAnswer } from './readiness-body';
import { ReadinessChecks } from './readiness-checks';

const probe = (name: string, check: (signal: AbortSignal) => Promise<ProbeResult>, timeoutMs = 1_000): ReadinessProbe => ({ name, timeoutMs, check });
const meta = { version: 'v', deploymentMode: 'local' } as const;

@Module({ imports: [TerminusModule.forRoot({ logger: false })], providers: [ReadinessChecks] })
class ChecksModule {}

describe(ReadinessChecks.name, () => {
  let context: INestApplicationContext;
  let sut: ReadinessChecks;
  beforeAll(async () => {
    context = await NestFactory.createApplicationContext(ChecksModule, { logger: false });
    sut = context.get(ReadinessChecks);
  });
  afterAll(() => context.close());

  it('runs the indicators in parallel and keeps each probe\'s result for the mapper', async () => {
    const order: string[] = [];
    let releaseSlow!: () => void;
    const slow = probe('slow', () => new Promise((resolve) => { releaseSlow = () => { order.push('slow'); resolve({ status: 'up' }); }; }));
    const fast = probe('fast', async () => { order.push('fast'); releaseSlow(); return { status: 'n/a', reason: 'multi-tenant' }; });
    const result = await sut.run([slow, fast]);
    expect(order).toEqual(['fast', 'slow']);
    expect(result).toEqual({
      status: 'ok',
      info: { slow: { status: 'up', check: { status: 'up', latency_ms: expect.any(Number) } }, fast: { status: 'up', check: { status: 'n/a', reason: 'multi-tenant' } } },
      error: {},
      details: { slow: { status: 'up', check: { status: 'up', latency_ms: expect.any(Number) } }, fast: { status: 'up', check: { status: 'n/a', reason: 'multi-tenant' } } },
    });
  });

  it.each(['down', 'degraded'] as const)('turns a %s check into Terminus\' down and an unhealthy answer', async (status) => {
    const result = await sut.run([probe('up', () => Promise.resolve({ status: 'up' })), probe('x', () => Promise.resolve({ status, error: 'broken' }))]);
    expect(result.status).toBe('error');
    expect(result.error).toEqual({ x: { status: 'down', check: { status, error: 'broken', latency_ms: expect.any(Number) } } });
    expect(readinessAnswer(result, ['up', 'x'], meta)).toMatchObject({ status: 503, body: { status: 'unhealthy' } });
  });

  it('cuts each probe at its own timeout, while the others answer', async () => {
    jest.useFakeTimers();
    try {
      const pending = sut.run([probe('s3', () => new Promise(() => undefined), 2_000), probe('mongodb', () => Promise.resolve({ status: 'up' }), 100)]);
      await jest.advanceTimersByTimeAsync(2_000);
      const answer = readinessAnswer(await pending, ['s3', 'mongodb'], meta);
      expect(answer.body['checks']).toEqual({
        s3: { status: 'down', error: 'check timeout: s3 did not answer within 2000 ms', latency_ms: expect.any(Number) },
        mongodb: { status: 'up', latency_ms: expect.any(Number) },
      });
    } finally {
      jest.useRealTimers();
    }
  });

  it('reports every finished check to the observer, and asks again on every run', async () => {
    let looks = 0;
    const seen: string[] = [];
    const counting = probe('mongodb', () => Promise.resolve(++looks === 1 ? { status: 'up' } : { status: 'down', error: 'lost' }));
    const observe = (name: string, result: { status: string }) => seen.push(`${name}:${result.status}`);
    expect((await sut.run([counting], observe)).status).toBe('ok');
    expect((await sut.run([counting], observe)).status).toBe('error');
    expect(seen).toEqual(['mongodb:up', 'mongodb:down']);
  });
});
