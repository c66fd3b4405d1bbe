import { Controller, Get, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { HealthCheckService } from '@nestjs/terminus';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { EventEmitter } from 'node:events';
import { type AddressInfo } from 'node:net';
import { Lifecycle, SubsystemError } from './lifecycle/lifecycle';
import { runGracefully } from './lifecycle/run-gracefully';
import { PlatformModule } from './platform.module';
import { type PlatformOptions } from './readiness/platform-options';
import { PROBES, type ReadinessProbe, TENANT_READINESS, type TenantReadiness } from './readiness/probe';
import { staticProbe } from './readiness/probes';
import { Readiness } from './readiness/readiness.service';

// A small Fastify app on a real port, as the Manager and the Worker mount the module.
const base: PlatformOptions = { service: 'manager', version: '1.2.3', readyzVersion: '1.2.3-otel', deploymentMode: 'byoc', drainDelaySec: 0 };

async function start(options: Partial<PlatformOptions>, imports: unknown[] = []): Promise<{ app: NestFastifyApplication; url: string }> {
  @Module({ imports: [PlatformModule.forRoot({ ...base, ...options }), ...(imports as [])] })
  class TestAppModule {}
  const app = await NestFactory.create<NestFastifyApplication>(TestAppModule, new FastifyAdapter(), { logger: false });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}` };
}

const getJson = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
};

describe('PlatformModule on Fastify', () => {
  describe('with a hanging probe and a failing one', () => {
    let app: NestFastifyApplication;
    let url: string;
    const hanging: ReadinessProbe = { name: 's3', timeoutMs: 150, check: () => new Promise(() => undefined) };
    const failing: ReadinessProbe = { name: 'mongodb', timeoutMs: 2_000, check: () => Promise.reject(new Error('connect mongodb://app:hunter2@db failed')) };

    beforeAll(async () => {
      ({ app, url } = await start({ probes: [staticProbe('redis', { status: 'skipped', reason: 'not configured' }), hanging, failing], selfProbeBudgetMs: 1_000 }));
      await app.get(Readiness).selfProbeSettled();
    });
    afterAll(() => app.close());

    it('answers /readyz 503 with the hanging probe cut at its timeout and the error sanitised', async () => {
      const { status, body } = await getJson(`${url}/readyz`);
      expect(status).toBe(503);
      expect(body).toEqual({
        status: 'unhealthy',
        checks: {
          redis: { status: 'skipped', reason: 'not configured' },
          s3: { status: 'down', error: 'check timeout: s3 did not answer within 150 ms', latency_ms: expect.any(Number) },
          mongodb: { status: 'down', error: 'connect mongodb://***@db failed', latency_ms: expect.any(Number) },
        },
        version: '1.2.3-otel',
        deployment_mode: 'byoc',
      });
    });

    it('keeps /health at 503 "self-probe failed" for the life of the process', async () => {
      expect(await getJson(`${url}/health`)).toMatchObject({ status: 503, body: { status: 'unhealthy', reason: 'self-probe failed' } });
    });

    it('answers /readyz/tenant/:id 400 in single-tenant mode', async () => {
      expect(await getJson(`${url}/readyz/tenant/t-1`)).toMatchObject({ status: 400, body: { error: 'multi-tenant mode is disabled' } });
    });

    it('serves /version', async () => {
      const { status, body } = await getJson(`${url}/version`);
      expect(status).toBe(200);
      expect(body).toEqual({ version: '1.2.3', requestDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
    });

    it('exposes readiness, self-probe, HTTP and process metrics', async () => {
      await fetch(`${url}/readyz`);
      await fetch(`${url}/no-such-route`);
      const res = await fetch(`${url}/metrics`);
      const text = await res.text();
      expect(res.headers.get('content-type')).toContain('text/plain');
      expect(text).toContain('readyz_check_duration_ms_bucket{le="5000",dep="s3",status="down"}');
      expect(text).toMatch(/readyz_check_status\{dep="redis",status="skipped"\} \d+/);
      expect(text).toContain('selfprobe_result{dep="redis"} 1');
      expect(text).toContain('selfprobe_result{dep="s3"} 0');
      expect(text).toContain('process_cpu_user_seconds_total');
      expect(text).toMatch(/http_requests_total\{method="GET",route="\/readyz",status_code="503"\} \d+/);
      expect(text).toMatch(/http_requests_total\{method="GET",route="unmatched",status_code="404"\} 1/);
      expect(text).toContain('http_request_duration_seconds_bucket');
    });
  });

  describe('with a dependency that is still connecting when the app boots', () => {
    let app: NestFastifyApplication;
    let url: string;
    let looks = 0;
    // Down on the first two looks, up from the third: a client still opening its connection.
    const connecting: ReadinessProbe = {
      name: 'rabbitmq',
      timeoutMs: 2_000,
      check: () => Promise.resolve(++looks < 3 ? { status: 'down', error: 'not connected' } : { status: 'up' }),
    };

    beforeAll(async () => {
      ({ app, url } = await start({ probes: [connecting], selfProbeBudgetMs: 10_000 }));
      await app.get(Readiness).selfProbeSettled();
    });
    afterAll(() => app.close());

    it('asks again within the budget, so the process is healthy once the dependency answers', async () => {
      expect(looks).toBe(3);
      expect(await getJson(`${url}/health`)).toMatchObject({ status: 200, body: { status: 'healthy' } });
    });
  });

  describe('with healthy probes provided through the PROBES token', () => {
    let app: NestFastifyApplication;
    let url: string;

    @Module({ providers: [{ provide: PROBES, useValue: [staticProbe('mongodb', { status: 'up' }), staticProbe('tenant_manager', { status: 'n/a', reason: 'single-tenant' })] }] })
    class ProbesModule {}

    beforeAll(async () => {
      ({ app, url } = await start({}, [ProbesModule]));
      await app.get(Readiness).selfProbeSettled();
    });
    afterAll(() => app.close());

    it('is healthy and ready, as Terminus found', async () => {
      expect(await getJson(`${url}/health`)).toMatchObject({ status: 200, body: { status: 'healthy' } });
      const terminus = jest.spyOn(app.get(HealthCheckService), 'check');
      const { status, body } = await getJson(`${url}/readyz`);
      expect(terminus).toHaveBeenCalledTimes(1);
      expect(await terminus.mock.results[0]?.value).toMatchObject({ status: 'ok', details: { mongodb: { status: 'up' }, tenant_manager: { status: 'up' } } });
      expect(status).toBe(200);
      expect(body).toEqual({
        status: 'healthy',
        checks: { mongodb: { status: 'up', latency_ms: expect.any(Number) }, tenant_manager: { status: 'n/a', reason: 'single-tenant' } },
        version: '1.2.3-otel',
        deployment_mode: 'byoc',
      });
    });
  });

  describe('with tenant readiness provided through the TENANT_READINESS token', () => {
    let app: NestFastifyApplication;
    let url: string;
    const tenants: TenantReadiness = {
      resolve: (tenantId) => {
        if (tenantId === 'gone') return Promise.resolve({ status: 404, body: { error: 'tenant not found', tenant_id: tenantId } });
        if (tenantId === 'broken') return Promise.reject(new Error('connect https://tm:s3cret@tenants.internal refused'));
        const rabbitmq = tenantId === 'half' ? { status: 'degraded', error: 'circuit breaker half-open', breaker_state: 'half-open' } as const : { status: 'up' } as const;
        return Promise.resolve({ probes: [staticProbe('mongodb', { status: 'up', tls: true }), staticProbe('rabbitmq', rabbitmq)] });
      },
    };

    @Module({ providers: [{ provide: TENANT_READINESS, useValue: tenants }] })
    class TenantsModule {}

    beforeAll(async () => {
      ({ app, url } = await start({ deploymentMode: 'saas' }, [TenantsModule]));
      await app.get(Readiness).selfProbeSettled();
    });
    afterAll(() => app.close());

    it('answers a tenant\'s checks with the readiness body and its tenant_id', async () => {
      expect(await getJson(`${url}/readyz/tenant/t-1`)).toMatchObject({
        status: 200,
        body: {
          status: 'healthy',
          checks: { mongodb: { status: 'up', tls: true, latency_ms: expect.any(Number) }, rabbitmq: { status: 'up', latency_ms: expect.any(Number) } },
          version: '1.2.3-otel',
          deployment_mode: 'saas',
          tenant_id: 't-1',
        },
      });
      const half = await getJson(`${url}/readyz/tenant/half`);
      expect(half.status).toBe(503);
      expect(Object.keys(half.body)).toEqual(['status', 'checks', 'version', 'deployment_mode', 'tenant_id']);
      expect(half.body['checks']).toEqual({
        mongodb: { status: 'up', tls: true, latency_ms: expect.any(Number) },
        rabbitmq: { status: 'degraded', error: 'circuit breaker half-open', breaker_state: 'half-open', latency_ms: expect.any(Number) },
      });
    });

    it('passes the tenant manager\'s own answers through, sanitised', async () => {
      expect(await getJson(`${url}/readyz/tenant/gone`)).toEqual({ status: 404, body: { error: 'tenant not found', tenant_id: 'gone' }, headers: expect.anything() });
      expect(await getJson(`${url}/readyz/tenant/broken`)).toMatchObject({ status: 503, body: { error: 'tenant manager unreachable: connect https://***@tenants.internal refused' } });
      expect(await getJson(`${url}/readyz/tenant/%20`)).toMatchObject({ status: 400, body: { error: 'tenant id required' } });
    });
  });

  it('refuses to start when a subsystem fails to start, naming it', async () => {
    @Injectable()
    class BrokenConsumer implements OnModuleInit {
      constructor(private readonly lifecycle: Lifecycle) {}
      onModuleInit() {
        this.lifecycle.register({ name: 'job-consumer', start: () => Promise.reject(new Error('port in use')), stop: () => Promise.resolve() });
      }
    }
    @Module({ providers: [BrokenConsumer] })
    class BrokenModule {}

    const failure = await start({}, [BrokenModule]).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(SubsystemError);
    expect((failure as Error).message).toBe('subsystem job-consumer failed to start');
  });
});

describe('runGracefully on Fastify', () => {
  it('drains: readyz 503 at once, the slow request completes, subsystems stop in reverse, exit 0', async () => {
    let releaseSlow!: () => void;
    const slowStarted = new Promise<void>((resolveStarted) => {
      @Controller()
      class SlowController {
        @Get('slow')
        async slow(): Promise<{ done: true }> {
          resolveStarted();
          await new Promise<void>((resolve) => { releaseSlow = resolve; });
          return { done: true };
        }
      }
      SlowModuleHolder.controller = SlowController;
    });

    const stops: string[] = [];
    @Injectable()
    class Loops implements OnModuleInit {
      constructor(private readonly lifecycle: Lifecycle) {}
      onModuleInit() {
        for (const name of ['consumer', 'sweep']) {
          this.lifecycle.register({ name, start: () => Promise.resolve(), stop: async () => { stops.push(name); } });
        }
      }
    }
    @Module({ controllers: [SlowModuleHolder.controller!], providers: [Loops] })
    class SlowModule {}

    const { app, url } = await start({ probes: [staticProbe('mongodb', { status: 'up' })] }, [SlowModule]);
    const fakeProcess = Object.assign(new EventEmitter(), { exit: jest.fn() });
    const exited = new Promise<number>((resolve) => fakeProcess.exit.mockImplementation((code: number) => resolve(code)));
    runGracefully(app, { drainDelaySec: 0.5, process: fakeProcess as unknown as NodeJS.Process });

    const slow = fetch(`${url}/slow`).then(async (res) => ({ status: res.status, body: await res.json() }));
    await slowStarted;
    fakeProcess.emit('SIGTERM');

    const readyz = await getJson(`${url}/readyz`);
    expect(readyz.status).toBe(503);
    expect(readyz.body).toEqual({
      status: 'unhealthy', checks: { draining: { status: 'down', reason: 'graceful drain in progress' } }, version: '1.2.3-otel', deployment_mode: 'byoc',
    });
    expect(app.get(Lifecycle).signal.aborted).toBe(false); // intake not stopped yet: still in the delay

    await waitFor(() => !app.getHttpServer().listening); // the delay ended and the listener closed
    expect(stops).toEqual([]); // HTTP first; the slow request is still in flight
    releaseSlow();
    expect(await slow).toEqual({ status: 200, body: { done: true } });
    expect(await exited).toBe(0);
    expect(stops).toEqual(['sweep', 'consumer']);
    await expect(fetch(`${url}/readyz`)).rejects.toThrow();
  });
});

const SlowModuleHolder: { controller?: new () => unknown } = {};

async function waitFor(condition: () => boolean, boundMs = 10_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((resolve) => setImmediate(resolve));
  }
}
