import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isEncodedRows, type Connector, type CursorItem, type RowCursor } from '@fetcher/engine';
import { PostgresConnectorFactory } from '@fetcher/connectors';
import { DemoDatabase } from './demo-database';
import { DEMO_ROW_COUNTS, DEMO_SCHEMA } from './demo-seed';

async function drain(cursor: RowCursor): Promise<CursorItem[]> {
  const items: CursorItem[] = [];
  try {
    for (let item = await cursor.next(); item !== null; item = await cursor.next()) items.push(item);
  } finally {
    await cursor.close();
  }
  return items;
}

/** Every row of `table` as plain objects, whichever form (value rows or pre-encoded) the connector chose. */
function rowsOf(items: readonly CursorItem[], table: string): Record<string, unknown>[] {
  return items
    .filter((item) => item.table === table)
    .flatMap((item) =>
      isEncodedRows(item)
        ? (JSON.parse(`[${Buffer.from(item.encoded).toString('utf8')}]`) as Record<string, unknown>[])
        : [JSON.parse(JSON.stringify(item.row, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as Record<string, unknown>],
    );
}

describe('the demo database through the real PostgreSQL connector', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fetcher-demo-db-'));
  const demo = new DemoDatabase();
  let connector: Connector;
  const signal = new AbortController().signal;

  // The demo listens on loopback, which host safety refuses unless the operator allows it.
  const factoryFor = (port: number): Connector =>
    new PostgresConnectorFactory({ hostSafety: { allowPrivate: true, allowlist: ['127.0.0.1/32'] } }).build({
      configName: 'demo',
      type: 'POSTGRESQL',
      host: '127.0.0.1',
      port,
      databaseName: 'postgres',
      userName: 'postgres',
      sslMode: 'disable',
      hostAttributes: { schemaScope: [DEMO_SCHEMA] },
    });

  beforeAll(async () => {
    const { port } = await demo.start({ dataDir: join(dir, 'demo-db') });
    connector = factoryFor(port);
  });

  afterAll(async () => {
    await connector?.close();
    await demo.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps its files, and opens them again without seeding twice', async () => {
    await connector.close();
    await demo.stop();
    const { port } = await demo.start({ dataDir: join(dir, 'demo-db') });
    connector = factoryFor(port);
    await expect(connector.testConnection(signal)).resolves.toBeUndefined();
  });

  it('keeps its files for its owner only: directories 0700, files 0600', () => {
    const root = join(dir, 'demo-db');
    const modes = new Map<string, number>();
    for (const path of ['', ...readdirSync(root, { recursive: true, encoding: 'utf8' })]) {
      const info = statSync(join(root, path));
      const mode = info.mode & 0o777;
      if (mode !== (info.isDirectory() ? 0o700 : 0o600)) modes.set(path, mode);
    }
    expect(readdirSync(root, { recursive: true }).length).toBeGreaterThan(100);
    expect(Object.fromEntries([...modes].slice(0, 5).map(([path, mode]) => [path, mode.toString(8)]))).toEqual({});
    expect(modes.size).toBe(0);
  });

  it('answers a connection test', async () => {
    await expect(connector.testConnection(signal)).resolves.toBeUndefined();
  });

  it('discovers the three shop tables and their columns', async () => {
    const snapshot = await connector.discoverSchema(signal);
    const tables = Object.fromEntries(snapshot.tables.map((t) => [t.name, (t.columns ?? []).map((c) => c.name).sort()]));
    expect(tables).toEqual({
      'shop.customers': ['country', 'created_at', 'email', 'id', 'name', 'vip'],
      'shop.orders': ['customer_id', 'details', 'id', 'ordered_at', 'product_id', 'quantity', 'status', 'total'],
      'shop.products': ['category', 'id', 'in_stock', 'name', 'price', 'sku'],
    });
  });

  it('extracts every seeded row, with exact decimals and UTC timestamps', async () => {
    const items = await drain(
      await connector.queryStream(
        {
          configName: 'demo',
          tables: {
            'shop.customers': ['email', 'id'],
            'shop.orders': ['details', 'id', 'ordered_at', 'total'],
            'shop.products': ['id', 'price', 'sku'],
          },
        },
        signal,
      ),
    );
    const customers = rowsOf(items, 'shop.customers');
    const orders = rowsOf(items, 'shop.orders');
    const products = rowsOf(items, 'shop.products');
    expect([customers.length, products.length, orders.length]).toEqual([DEMO_ROW_COUNTS.customers, DEMO_ROW_COUNTS.products, DEMO_ROW_COUNTS.orders]);
    expect(customers).toContainEqual({ id: 1, email: 'customer1@example.com' });
    expect(products).toContainEqual({ id: 1, sku: 'SKU-0001', price: '46.91' });
    expect(orders).toContainEqual({ id: 1, total: '315.88', ordered_at: '2025-06-01T01:11:00Z', details: { channel: 'app', gift: false } });
  });

  it('applies filters in the database', async () => {
    const items = await drain(
      await connector.queryStream(
        { configName: 'demo', tables: { 'shop.customers': ['country', 'id'] }, filters: { 'shop.customers': { country: { eq: ['BR'] } } } },
        signal,
      ),
    );
    const rows = rowsOf(items, 'shop.customers');
    expect(rows).toHaveLength(DEMO_ROW_COUNTS.customers / 8);
    expect(rows.every((r) => r.country === 'BR')).toBe(true);
  });
});
