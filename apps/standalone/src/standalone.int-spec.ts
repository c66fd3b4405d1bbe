import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadStandaloneConfig } from './config/standalone.config';
import { startStandalone, type StandaloneService } from './standalone';
import { freePort } from './testing/free-port';

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

  it('discovers the demo schema and tests the connection through the real connector', async () => {
    const [demo] = (await call('GET', '/v1/management/connections', undefined, demoHeaders)).body.items;
    const schema = await call('GET', `/v1/management/connections/${demo.id}/schema`, undefined, demoHeaders);
    expect(schema.status).toBe(200);
    expect(schema.body.tables.map((t: { name: string }) => t.name)).toEqual(['shop.customers', 'shop.orders', 'shop.products']);
    expect(await call('POST', `/v1/management/connections/${demo.id}/test`, undefined, demoHeaders)).toMatchObject({ status: 200, body: { status: 'success' } });
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
  });
});
