import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { FaultProxy } from '@fetcher/platform/testing';
import { loadStandaloneConfig } from './config/standalone.config';
import { startStandalone, type StandaloneService } from './standalone';
import { eventually, freePort } from './testing/free-port';

interface Answer {
  status: number;
  body: { jobId?: string; status?: string };
}

/**
 * Bursts of identical job requests against the standalone service with its running Worker, on a real
 * PostgreSQL reached through a proxy that counts (and can hold) every connection to it.
 */
describe('the standalone service under a burst of identical job requests', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-dedup-'));
  const schema = `dedup_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const proxy = new FaultProxy(5432);
  const admin = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
  let service: StandaloneService;
  let configName: string;

  const post = async (body: string): Promise<Answer> => {
    const response = await fetch(`${service.baseUrl}/v1/fetcher`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    return { status: response.status, body: (await response.json()) as Answer['body'] };
  };
  const jobStatus = async (id: string) => ((await (await fetch(`${service.baseUrl}/v1/fetcher/${id}`)).json()) as { status: string }).status;
  const terminal = (id: string) => eventually(async () => ((s) => (s === 'completed' || s === 'failed' ? s : undefined))(await jobStatus(id)));
  const aBody = () => JSON.stringify({ dataRequest: { mappedFields: { [configName]: { [`${schema}.items`]: ['id'] } } }, metadata: { source: 'bursty', n: randomUUID() } });
  const histogram = (answers: Answer[]) => answers.reduce<Record<number, number>>((h, a) => ({ ...h, [a.status]: (h[a.status] ?? 0) + 1 }), {});
  /** Jobs stored for one request body, read from the data directory (records only, not a write in progress). */
  const storedJobs = (body: string) => {
    const n = (JSON.parse(body) as { metadata: { n: string } }).metadata.n;
    const dir = join(dataDir, 'jobs');
    return readdirSync(dir).filter((file) => file.endsWith('.json') && readFileSync(join(dir, file), 'utf8').includes(n));
  };

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.items (id int); INSERT INTO ${schema}.items VALUES (1), (2), (3)`);
    await proxy.start();
    const port = await freePort();
    service = await startStandalone(loadStandaloneConfig({ FETCHER_DATA_DIR: dataDir, SERVER_ADDRESS: `127.0.0.1:${port}` }, dataDir), { logger: false });
    configName = `pg-${randomUUID().slice(0, 8)}`;
    const created = await fetch(`${service.baseUrl}/v1/management/connections`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Product-Name': 'bursty' },
      body: JSON.stringify({ configName, type: 'POSTGRESQL', host: '127.0.0.1', port: proxy.port, databaseName: 'test', userName: 'postgres', password: 'trust' }),
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await service?.close();
    await proxy.close();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('dials the datasource once to create the job for 30 identical concurrent requests', async () => {
    // The Worker's extraction dials through the proxy too: measure what one job costs alone first.
    const single = aBody();
    let before = proxy.accepted;
    const one = await post(single);
    expect(one.status).toBe(202);
    expect(await terminal(one.body.jobId!)).toBe('completed');
    const perJob = proxy.accepted - before;

    const body = aBody();
    before = proxy.accepted;
    const answers = await Promise.all(Array.from({ length: 30 }, () => post(body)));
    expect(histogram(answers)).toEqual({ 200: 29, 202: 1 });
    expect(await terminal(answers.find((a) => a.status === 202)!.body.jobId!)).toBe('completed');
    // At most what one job cost alone: job creation's schema check may find the schema cached by now.
    expect(proxy.accepted - before).toBeLessThanOrEqual(perJob);
    expect(storedJobs(body)).toHaveLength(1);
  });

  it('answers with one job, 200 or 202 only, when the Worker completes the first job in the middle of the burst', async () => {
    const body = aBody();
    proxy.hold();
    let firstJob: string | undefined;
    const answers = Promise.all(
      Array.from({ length: 30 }, () =>
        post(body).then((a) => {
          if (a.status === 202) firstJob ??= a.body.jobId;
          return a;
        }),
      ),
    );
    // Let one creation dial through; then only the Worker's dials, newest first, until its job completes.
    await eventually(() => (proxy.held > 0 ? true : undefined));
    proxy.releaseNewest();
    const id = await eventually(() => firstJob);
    await eventually(async () => {
      if ((await jobStatus(id)) === 'completed') return true;
      proxy.releaseNewest();
      return undefined;
    });
    proxy.releaseAll();
    const settled = await answers;
    expect(histogram(settled)).toEqual({ 200: 29, 202: 1 });
    expect(new Set(settled.map((a) => a.body.jobId))).toEqual(new Set([id]));
    expect(storedJobs(body)).toHaveLength(1);
  });
});
