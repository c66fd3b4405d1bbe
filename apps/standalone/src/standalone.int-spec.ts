import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { deriveSubKeys, openEnvelope } from '@fetcher/platform';
import { loadStandaloneConfig } from './config/standalone.config';
import { banner } from './banner';
import { DEMO_ROW_COUNTS } from './demo/demo-seed';
import { startStandalone, type StandaloneService } from './standalone';
import { eventually, freePort } from './testing/free-port';

interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers are read field by field in the assertions
  body: any;
}

describe('the standalone service over HTTP', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-standalone-'));
  let service: StandaloneService | undefined;

  const start = async () => {
    const port = await freePort();
    const config = loadStandaloneConfig({ FETCHER_DATA_DIR: dataDir, SERVER_ADDRESS: `127.0.0.1:${port}` }, dataDir);
    service = await startStandalone(config, { logger: false });
    return service;
  };
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const response = await fetch(`${service!.baseUrl}${path}`, {
      method,
      headers: { ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text };
  };
  const demoHeaders = { 'X-Product-Name': 'demo' };

  afterAll(async () => {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts ready, with the demo connection registered for the product demo', async () => {
    await start();
    expect((await call('GET', '/readyz')).status).toBe(200);
    const list = await call('GET', '/v1/management/connections', undefined, demoHeaders);
    expect(list).toMatchObject({ status: 200, body: { total: 1, items: [{ configName: 'demo', productName: 'demo', type: 'POSTGRESQL', schema: 'shop' }] } });
  });

  it('prints a banner whose every URL answers', async () => {
    const text = banner({ baseUrl: service!.baseUrl, dataDir, keyOrigin: service!.keyOrigin, demo: service!.demo!, startupMs: 0, defaultDataDir: false });
    const urls = [...text.matchAll(/http:\/\/127\.0\.0\.1:\d+(\/[\w/.-]*)/g)].map((m) => m[1]).filter((path) => !path.includes('<'));
    expect(urls).toEqual(expect.arrayContaining(['/swagger', '/swagger/doc.json', '/health', '/readyz', '/metrics', '/v1/management/connections']));
    for (const path of new Set(urls.filter((p) => p !== '/v1/fetcher' && p !== '/v1/fetcher/'))) {
      const response = await fetch(`${service!.baseUrl}${path}`, { headers: demoHeaders });
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
    }
    const openapi = (await call('GET', '/swagger/doc.json')).body;
    expect(openapi).toMatchObject({ openapi: expect.stringMatching(/^3\./), paths: expect.objectContaining({ '/v1/fetcher': expect.anything() }) });
  });

  it('discovers the demo schema and tests the connection through the real connector', async () => {
    const [demo] = (await call('GET', '/v1/management/connections', undefined, demoHeaders)).body.items;
    const schema = await call('GET', `/v1/management/connections/${demo.id}/schema`, undefined, demoHeaders);
    expect(schema.status).toBe(200);
    expect(schema.body.tables.map((t: { name: string }) => t.name)).toEqual(['shop.customers', 'shop.orders', 'shop.products']);
    expect(await call('POST', `/v1/management/connections/${demo.id}/test`, undefined, demoHeaders)).toMatchObject({ status: 200, body: { status: 'success' } });
  });

  const jobBody = {
    dataRequest: { mappedFields: { demo: { 'shop.customers': ['id', 'country'], 'shop.orders': ['id', 'total'] } }, filters: { demo: { 'shop.customers': { country: { eq: ['BR'] } } } } },
    metadata: { source: 'demo' },
  };
  let completedJob: { id: string; resultPath: string; resultHmac: string } | undefined;

  it('runs a job on the demo connection to a result that only the data directory key opens', async () => {
    const created = await call('POST', '/v1/fetcher', jobBody);
    expect(created).toMatchObject({ status: 202, body: { status: 'pending', message: 'Job created and queued for processing' } });
    const job = await eventually(async () => {
      const answer = await call('GET', `/v1/fetcher/${created.body.jobId}`);
      return answer.body.status === 'completed' || answer.body.status === 'failed' ? answer.body : undefined;
    });
    expect(job).toMatchObject({ id: created.body.jobId, status: 'completed', resultPath: `external-data/${created.body.jobId}.json` });
    expect(JSON.stringify(job.metadata ?? {})).not.toContain('terminalEvent');

    const master = Buffer.from(readFileSync(join(dataDir, 'master.key'), 'utf8').trim(), 'base64');
    const keys = deriveSubKeys(master);
    const plaintext = openEnvelope(keys.storage, readFileSync(join(dataDir, 'objects', job.resultPath), 'utf8'));
    expect(createHmac('sha256', keys.externalHmac).update(plaintext).digest('hex')).toBe(job.resultHmac);
    const document = JSON.parse(plaintext.toString('utf8'));
    expect(document.demo['shop.customers']).toHaveLength(DEMO_ROW_COUNTS.customers / 8);
    expect(document.demo['shop.orders']).toHaveLength(DEMO_ROW_COUNTS.orders);
    // The same request again is a duplicate of the completed job.
    expect(await call('POST', '/v1/fetcher', jobBody)).toMatchObject({ status: 200, body: { jobId: job.id, status: 'completed' } });
    completedJob = job;
  });

  it('serves the result route by default on loopback: exactly the plaintext the data directory key opens', async () => {
    const job = completedJob!;
    const response = await fetch(`${service!.baseUrl}/v1/fetcher/${job.id}/result`);
    expect(response.status).toBe(200);
    const master = Buffer.from(readFileSync(join(dataDir, 'master.key'), 'utf8').trim(), 'base64');
    const plaintext = openEnvelope(deriveSubKeys(master).storage, readFileSync(join(dataDir, 'objects', job.resultPath), 'utf8'));
    expect(Buffer.from(await response.arrayBuffer()).equals(plaintext)).toBe(true);
    expect(await call('GET', '/console/settings.json')).toEqual({ status: 200, body: { resultDownload: true } });
  });

  it('answers hostile input as the Manager does: its 4xx, never a raw 500', async () => {
    const raw = async (path: string, body?: string) => {
      const res = await fetch(`${service!.baseUrl}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: { 'Content-Type': 'application/json', ...demoHeaders }, ...(body === undefined ? {} : { body }) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    expect(await raw('/v1/fetcher', '{"dataRequest":{"mappedFields":{"demo":{"shop.customers":["id"]}}},"metadata":{"source":"demo","n":1e400}}'))
      .toMatchObject({ status: 400, body: { code: 'FET-0001' } });
    expect(await raw('/v1/fetcher', `{"dataRequest":{"mappedFields":{"demo":{"shop.customers":["id"]}}},"metadata":{"source":"demo","d":${deep}}}`))
      .toMatchObject({ status: 400, body: { code: 'FET-0001' } });
    expect(await raw('/v1/fetcher', '{"dataRequest":{"mappedFields":{"demo":{"t\\u0000x":["id"]}}},"metadata":{"source":"demo"}}'))
      .toMatchObject({ status: 400, body: { code: 'FET-0401' } });
    expect(await raw('/v1/management/connections?metadata.__proto__=x')).toMatchObject({ status: 400, body: { code: 'FET-0405' } });
  });

  it("serves the Manager's and the Worker's metrics in one exposition, each metric once", async () => {
    // The Worker counts a job just after its terminal write, so the poll above can see `completed` a moment
    // before the counter moves: wait for the count, then check the whole exposition.
    const completedCount = /^fetcher_worker_jobs_total\{status="completed"\} 1$/m;
    const metrics = await eventually(async () => {
      const answer = await call('GET', '/metrics');
      return answer.status !== 200 || completedCount.test(String(answer.body)) ? answer : undefined;
    });
    expect(metrics.status).toBe(200);
    const text = String(metrics.body);
    expect(text).toMatch(/^http_requests_total\{method="POST",route="\/v1\/fetcher",status_code="202"\} 1$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    const helps = text.split('\n').filter((line) => line.startsWith('# HELP '));
    expect(new Set(helps).size).toBe(helps.length);
  });

  it('keeps a created connection across a restart, and points the demo connection at the new port', async () => {
    const { host, port } = service!.demo!;
    const created = await call(
      'POST',
      '/v1/management/connections',
      { configName: 'shop-copy', type: 'POSTGRESQL', host, port, databaseName: 'postgres', userName: 'postgres', password: 'pw' },
      demoHeaders,
    );
    expect(created.status).toBe(201);

    await service!.close();
    service = undefined;
    await start();

    const again = await call('GET', `/v1/management/connections/${created.body.id}`, undefined, demoHeaders);
    expect(again).toMatchObject({ status: 200, body: { configName: 'shop-copy', port, createdAt: created.body.createdAt } });
    const list = await call('GET', '/v1/management/connections', undefined, demoHeaders);
    expect(list.body.items.find((c: { configName: string }) => c.configName === 'demo')).toMatchObject({ port: service!.demo!.port });
    expect(await call('GET', `/v1/fetcher/${completedJob!.id}`)).toMatchObject({ status: 200, body: { status: 'completed', resultHmac: completedJob!.resultHmac } });
  });

  it('refuses a second service on the same data directory, naming the one that holds it, and leaves the first running', async () => {
    const port = await freePort();
    const second = startStandalone(loadStandaloneConfig({ FETCHER_DATA_DIR: dataDir, SERVER_ADDRESS: `127.0.0.1:${port}` }, dataDir), { logger: false });
    await expect(second).rejects.toThrow(new RegExp(`FETCHER_DATA_DIR: .* is in use by another Fetcher process \\(pid ${process.pid} on `));
    expect((await call('GET', '/readyz')).status).toBe(200);
  });

  it('refuses, once the directory is free, a master key other than the one it was written with', async () => {
    await service!.close();
    service = undefined;
    const port = await freePort();
    const otherKey = Buffer.alloc(32, 7).toString('base64');
    const wrongKey = startStandalone(loadStandaloneConfig({ FETCHER_DATA_DIR: dataDir, SERVER_ADDRESS: `127.0.0.1:${port}`, APP_ENC_KEY: otherKey }, dataDir), { logger: false });
    await expect(wrongKey).rejects.toThrow(/APP_ENC_KEY: is not the master key this data directory was written with/);
    // The refused start released the lock and changed nothing: the right key starts as before.
    await start();
    expect((await call('GET', `/v1/fetcher/${completedJob!.id}`)).body).toMatchObject({ status: 'completed' });
  });

  it('leaves every file of the data directory, the demo database included, for its owner only', async () => {
    await service!.close();
    service = undefined;
    const entries = readdirSync(dataDir, { recursive: true, encoding: 'utf8' }).map((name) => join(dataDir, name));
    expect(entries.length).toBeGreaterThan(10);
    const exposed = [dataDir, ...entries]
      .map((path) => ({ path, stat: lstatSync(path) }))
      .filter(({ stat }) => (stat.isDirectory() && (stat.mode & 0o777) !== 0o700) || (stat.isFile() && (stat.mode & 0o777) !== 0o600))
      .map(({ path, stat }) => `${path} ${(stat.mode & 0o777).toString(8)}`);
    expect(exposed).toEqual([]);
    expect(entries).not.toContain(join(dataDir, 'fetcher.lock'));
  });
});
