import { randomUUID } from 'node:crypto';
import { type AppProcess, freePort, startApp } from './support/app-process';
import { managerEnv } from './support/manager-env';
import { jobBody, jobDoc, publishJob, seedJob, signedHeaders, startWorkerWorld, type WorkerWorld } from './support/worker-harness';

// A full scenario with a planted datasource password: every log line of both services (at debug
// level), every HTTP answer, every event and every stored document is searched for the password,
// the master key and a DSN carrying them. MariaDB's root has no password here, so the planted one
// is wrong and every dial fails, which is where drivers like to quote what they were given.
const PASSWORD = `Planted-${randomUUID().slice(0, 8)}-pw!`;

async function until<T>(condition: () => Promise<T | undefined | false>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('secret scan: a planted password never leaves the services', () => {
  let world: WorkerWorld;
  let manager: AppProcess | undefined;
  let worker: AppProcess | undefined;
  const answers: string[] = [];

  beforeAll(async () => {
    world = await startWorkerWorld();
  });
  afterAll(async () => {
    await manager?.stop();
    await worker?.stop();
    await world?.close();
  });

  it('keeps the password, the key and the DSN out of logs, answers, events and stored documents', async () => {
    const workerPort = await freePort();
    const workerEnv = world.env({ LOG_LEVEL: 'debug', HEALTH_PORT: String(workerPort) });
    worker = await startApp('worker', workerPort, workerEnv, '/readyz');
    const managerPort = await freePort();
    const env = managerEnv(world.mongo.uri, managerPort, {
      LOG_LEVEL: 'debug',
      APP_ENC_KEY: workerEnv.APP_ENC_KEY,
      MONGO_NAME: workerEnv.MONGO_NAME,
      RABBITMQ_HOST: '127.0.0.1',
      RABBITMQ_DEFAULT_USER: 'guest',
      RABBITMQ_DEFAULT_PASS: 'guest',
      RABBITMQ_FETCHER_WORK_QUEUE: world.workQueue,
    });
    manager = await startApp('manager', managerPort, env, '/readyz');

    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${manager!.baseUrl}${path}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-product-name': 'scanner' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      answers.push(`${method} ${path} -> ${res.status} ${JSON.stringify([...res.headers])} ${text}`);
      return { status: res.status, text };
    };

    const configName = `scan_${world.id}`;
    const created = await call('POST', '/v1/management/connections', {
      configName, type: 'MYSQL', host: '127.0.0.1', port: 3306, databaseName: 'test', userName: 'root', password: PASSWORD,
    });
    expect(created.status).toBe(201);
    const id = (JSON.parse(created.text) as { id: string }).id;
    await call('GET', `/v1/management/connections/${id}`);
    expect((await call('POST', `/v1/management/connections/${id}/test`)).status).toBe(500);
    await call('GET', `/v1/management/connections/${id}/schema`);
    // The Manager dials before accepting a job, so it refuses this one (connection down)...
    expect((await call('POST', '/v1/fetcher', { dataRequest: { mappedFields: { [configName]: { t: ['f'] } } }, metadata: { source: 'scanner' } })).status).toBe(400);
    // ...and the Worker gets one the way the Manager would have sent it, decrypts the planted password and fails.
    const jobId = randomUUID();
    await seedJob(world.db, jobId, { [configName]: { t: ['f'] } }, { source: 'scanner' });
    const body = jobBody(jobId, { [configName]: { t: ['f'] } }, { source: 'scanner' });
    publishJob(world, body, signedHeaders(body, jobId, world.workQueue));
    await until(async () => (await jobDoc(world, jobId))?.status === 'failed', 'the job to fail in the Worker');
    await until(async () => world.events.length > 0, 'the job.failed event');
    expect((await call('GET', `/v1/fetcher/${jobId}`)).text).toContain('"failed"');

    await manager.stop();
    await worker.stop();
    const logs = `${manager.output()}\n${worker.output()}`;
    const events = world.events.map((m) => `${JSON.stringify(m.properties.headers)} ${m.content.toString('utf8')}`);
    const stored = JSON.stringify(await Promise.all((await world.db.collections()).map((c) => c.find({}).toArray())));

    expect(logs).toMatch(/request completed/); // the logs were really captured
    expect(stored).toContain(configName);
    const haystack = [logs, ...answers, ...events, stored].join('\n');
    for (const secret of [PASSWORD, encodeURIComponent(PASSWORD), env.APP_ENC_KEY, `root:${PASSWORD}`]) {
      expect({ secret, found: haystack.includes(secret) }).toEqual({ secret, found: false });
    }
  });
});
