import { randomUUID } from 'node:crypto';
import { startMongoTestServer, type MongoTestServer } from '@fetcher/mongo-test-server';
import { FaultProxy } from '@fetcher/platform/testing';
import amqplib, { type ChannelModel } from 'amqplib';
import { Client } from 'pg';
import { type AppProcess, freePort, startApp } from '../e2e/support/app-process';
import { INTERNAL_PG, managerEnv } from '../e2e/support/manager-env';
import { FAULT_MS, figures, load, OBJECTIVE, report, timeUntil, window } from './support/objectives';

interface Readyz {
  readonly status: number;
  readonly checks: Record<string, { status: string }>;
}

/**
 * The Manager with Redis behind a fault proxy that refuses every dial for the fault window, under a
 * steady mix of API calls that use Redis when it is there: job creation, schema validation (the
 * schema cache) and the rate-limited connection test. Redis is optional, so the calls keep working
 * on the in-process fallbacks; `/readyz` reports redis down while it is gone and up once it is back.
 */
describe('chaos: the Manager loses Redis', () => {
  let mongo: MongoTestServer;
  let broker: ChannelModel;
  let pg: Client;
  let manager: AppProcess;
  let queue: string;
  const redis = new FaultProxy(6379);
  const schema = `chaos_${randomUUID().slice(0, 8)}`;
  let connectionId = '';

  const readyz = async (): Promise<Readyz> => {
    const res = await fetch(`${manager.baseUrl}/readyz`);
    return { status: res.status, checks: ((await res.json()) as { checks: Readyz['checks'] }).checks };
  };
  const post = (path: string, body: unknown) => fetch(`${manager.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Product-Name': 'chaos' },
    body: JSON.stringify(body),
  });
  let n = 0;
  /** One API call of the mix: each kind in turn. */
  const call = async (): Promise<number> => {
    n += 1;
    const mappedFields = { 'pg-internal': { [`${schema}.items`]: ['id'] } };
    switch (n % 3) {
      case 0: return (await post('/v1/fetcher', { dataRequest: { mappedFields }, metadata: { source: 'chaos', n } })).status;
      case 1: return (await post('/v1/management/connections/validate-schema', { mappedFields })).status;
      default: return (await post(`/v1/management/connections/${connectionId}/test`, {})).status;
    }
  };

  beforeAll(async () => {
    pg = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
    await pg.connect();
    await pg.query(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.items AS SELECT g AS id FROM generate_series(1, 3) g`);
    mongo = await startMongoTestServer();
    broker = await amqplib.connect('amqp://guest:guest@127.0.0.1:5672');
    await redis.start();
    const port = await freePort();
    const env = managerEnv(mongo.uri, port, { ...INTERNAL_PG, RABBITMQ_HOST: '127.0.0.1', REDIS_HOST: '127.0.0.1', REDIS_PORT: String(redis.port) });
    queue = env.RABBITMQ_FETCHER_WORK_QUEUE!;
    manager = await startApp('manager', port, env, '/readyz');
    const created = await post('/v1/management/connections', {
      configName: `pg-${randomUUID().slice(0, 8)}`, type: 'POSTGRESQL', host: '127.0.0.1', port: 5432, databaseName: 'test', userName: 'postgres', password: 'trust',
    });
    expect(created.status).toBe(201);
    connectionId = ((await created.json()) as { id: string }).id;
  });

  afterAll(async () => {
    await manager?.stop();
    await redis.close();
    const channel = await broker?.createChannel();
    await channel?.deleteQueue(queue).catch(() => undefined);
    await broker?.close();
    await mongo?.close();
    await pg?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await pg?.end();
  });

  it('keeps serving on the fallbacks while Redis is gone, reports it truthfully, and is back within the objective', async () => {
    expect((await readyz()).checks.redis?.status).toBe('up');
    // The same mix without the fault first: on a shared machine the fault is judged by what it adds.
    const baseline = figures(await load(call, window()));
    await redis.refuse();
    const fault = window();
    const samples = load(call, fault);
    const readySamples = load(async () => {
      const r = await readyz();
      return r.checks.mongodb?.status === 'up' && r.checks.rabbitmq?.status === 'up' ? r.checks.redis?.status === 'down' ? 1 : 2 : 3;
    }, fault, 1, () => true);
    const detectedMs = await timeUntil(async () => (await readyz()).checks.redis?.status === 'down', FAULT_MS + 5_000, 'readyz to report redis down');
    const during = figures(await samples);
    const probes = (await readySamples).map((s) => s.status);
    await redis.heal();
    const recoveryMs = await timeUntil(async () => {
      const r = await readyz();
      return r.status === 200 && r.checks.redis?.status === 'up';
    });
    report('redis gone', { ...during, baselineP99Ms: baseline.p99Ms, readyzDetectedMs: detectedMs, readyzSamples: probes.length, recoveryMs });

    expect(during.calls).toBeGreaterThan(10);
    expect(during.successRate).toBeGreaterThanOrEqual(OBJECTIVE.successRate);
    expect(during.p99Ms).toBeLessThan(baseline.p99Ms + OBJECTIVE.p99Ms);
    expect(recoveryMs).toBeLessThan(OBJECTIVE.recoveryMs);
    // Truthful: the other dependencies were reported up in every sample, and redis down once detected.
    expect(probes).not.toContain(3);
    expect(probes).toContain(1);
  });
});
