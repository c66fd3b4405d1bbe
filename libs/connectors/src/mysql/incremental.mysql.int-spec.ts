/**
 * Incremental extraction through the engine against the real MariaDB: chained jobs with limits that
 * cut a block of rows sharing one timestamp, inserts and updates between jobs, numeric, decimal and
 * text cursors, NULL cursors first, and the schema facts discovery reports for planning.
 */
import { randomBytes } from 'node:crypto';
import { createEngine, createTenantContext, EngineError, IncrementalText, incrementalText, type CursorPosition, type ExtractionRequest } from '@fetcher/engine';
import { MemoryConnectionStore, MemoryConnectorRegistry } from '@fetcher/engine/memory';
import { createConnection, type Connection } from 'mysql2/promise';
import type { ConnectorOptions } from '../common/options';
import { MysqlConnectorFactory } from './connector-factory.mysql';

const DATABASE = `fetcher_inc_${randomBytes(4).toString('hex')}`;
const TENANT = createTenantContext('acme');
const OPTIONS: ConnectorOptions = { hostSafety: { allowPrivate: true, allowlist: ['127.0.0.1/32', '::1/128', 'localhost'] } };
const TIE = '2026-03-01 08:00:00.123456'; // DATETIME(6) in UTC (the connector's session is UTC)

const FIXTURES = [
  `CREATE TABLE events (id BIGINT NOT NULL PRIMARY KEY, ts DATETIME(6) NOT NULL, amount DECIMAL(12,3) NOT NULL,
     name VARCHAR(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
     label VARCHAR(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL, note VARCHAR(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL, doc JSON NULL, KEY ts_id (ts, id))`,
  // 1,000 rows share one timestamp; ids are not in insertion order.
  `INSERT INTO events SELECT (seq * 7919) % 1009, '${TIE}', seq / 8, CONCAT('n', seq), CONCAT('l', seq), NULL, NULL FROM seq_1_to_1000`,
  "INSERT INTO events VALUES (5000, '2026-03-01 07:00:00', 1, 'Zed', 'x', NULL, NULL), (5001, '2026-03-01 09:00:00', 2, 'éa', 'y', NULL, NULL)",
  'CREATE TABLE nokey (id INT NOT NULL, ts DATETIME NOT NULL)',
  // For lag on a decimal cursor: steps of 0.125.
  'CREATE TABLE ledger (id INT NOT NULL PRIMARY KEY, note VARCHAR(10) NULL, amount DECIMAL(12,3) NOT NULL)',
  'INSERT INTO ledger SELECT seq, NULL, seq * 0.125 FROM seq_1_to_50',
];

describe('MariaDB incremental extraction through the engine', () => {
  let admin: Connection;
  const registry = new MemoryConnectorRegistry().register('MYSQL', new MysqlConnectorFactory(OPTIONS));
  const store = new MemoryConnectionStore();
  const engine = createEngine({ connectorRegistry: registry, connectionStore: store });

  beforeAll(async () => {
    admin = await createConnection({ host: '127.0.0.1', port: 3306, user: 'root', multipleStatements: false });
    await admin.query(`CREATE DATABASE ${DATABASE} CHARACTER SET utf8mb4`);
    await admin.query(`USE ${DATABASE}`);
    await admin.query("SET time_zone = '+00:00'");
    for (const sql of FIXTURES) await admin.query(sql);
    await store.create(TENANT, { configName: 'crm', type: 'MYSQL', host: '127.0.0.1', port: 3306, databaseName: DATABASE, userName: 'root', sslMode: '' });
  });

  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE}`).catch(() => undefined);
    await admin.end();
  });

  async function job(incremental: Record<string, unknown>, table = 'events'): Promise<{ ids: number[]; cursor: CursorPosition | null | undefined }> {
    const request = { mappedFields: { crm: { [table]: ['id', 'note'] } }, incremental: { crm: { [table]: incremental } } } as unknown as ExtractionRequest;
    const result = await engine.executeExtraction(await engine.planExtraction(TENANT, request));
    const rows = (JSON.parse(new TextDecoder().decode(result.direct?.data)) as { crm: Record<string, { id: number }[]> }).crm[table];
    return { ids: rows.map((r) => Number(r.id)), cursor: result.cursors?.crm[table] };
  }

  it('reports the primary key, nullability and text ordering (only NO PAD binary collations are code-point ordered)', async () => {
    const snapshot = await engine.discoverSchemaFresh(TENANT, 'crm');
    const events = snapshot.tables.find((t) => t.name === 'events')!;
    expect(events.primaryKey).toEqual(['id']);
    expect(events.columns).toEqual(
      expect.arrayContaining([
        { name: 'id', kind: 'integer', nativeType: 'bigint(20)', nullable: false },
        { name: 'ts', kind: 'datetime', nativeType: 'datetime(6)', nullable: false },
        { name: 'name', kind: 'string', nativeType: 'varchar(40)', nullable: false, ordering: 'binary' },
        { name: 'label', kind: 'string', nativeType: 'varchar(40)', nullable: true, ordering: 'collation' },
      ]),
    );
    expect(snapshot.tables.find((t) => t.name === 'nokey')).not.toHaveProperty('primaryKey');
  });

  it('chains jobs across a block of rows sharing one timestamp, with inserts and updates in between: every version once', async () => {
    const seen = new Map<number, number>();
    const record = (ids: number[]) => ids.forEach((id) => seen.set(id, (seen.get(id) ?? 0) + 1));
    const first = await job({ cursorField: 'ts', limit: 400 });
    expect(first.ids[0]).toBe(5000); // 07:00, before the block
    expect(first.cursor).toEqual({ value: '2026-03-01T08:00:00.123456Z', key: expect.any(String) });
    record(first.ids);
    const second = await job({ cursorField: 'ts', limit: 400, after: first.cursor });
    record(second.ids);
    // Written after both jobs: later timestamps (an insert, and an update of a row already read).
    await admin.query("INSERT INTO events VALUES (6000, UTC_TIMESTAMP(6), 3, 'new', 'z', NULL, NULL)");
    await admin.query("UPDATE events SET ts = UTC_TIMESTAMP(6), note = 'updated' WHERE id = 5000");
    const third = await job({ cursorField: 'ts', after: second.cursor });
    record(third.ids);
    expect(first.ids).toHaveLength(400);
    expect(second.ids).toHaveLength(400);
    expect(third.ids).toHaveLength(204); // the block's last 201, 5001 at 09:00, then the two written later
    expect(third.ids.slice(-3)).toEqual([5001, 6000, 5000]);
    const [rows] = await admin.query('SELECT id FROM events');
    expect([...seen.keys()].sort((a, b) => a - b)).toEqual((rows as { id: number }[]).map((r) => Number(r.id)).sort((a, b) => a - b));
    expect([...seen].filter(([, n]) => n > 1)).toEqual([[5000, 2]]); // the updated row, once per version
    expect(await job({ cursorField: 'ts', after: third.cursor })).toEqual({ ids: [], cursor: third.cursor });
  });

  it('chains a decimal cursor with ties exactly, and an integer cursor (the key itself)', async () => {
    const ids: number[] = [];
    let after: CursorPosition | null | undefined;
    for (let round = 0; round < 20; round++) {
      const next = await job({ cursorField: 'amount', limit: 73, ...(after ? { after } : {}) });
      ids.push(...next.ids);
      after = next.cursor;
      if (next.ids.length === 0) break;
    }
    const [rows] = await admin.query('SELECT id FROM events ORDER BY amount, id');
    expect(ids).toEqual((rows as { id: number }[]).map((r) => Number(r.id)));
    const byKey = await job({ cursorField: 'id', after: { value: '1000', key: '1000' } });
    expect(byKey.ids).toEqual([1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 5000, 5001, 6000]);
  });

  it('reads NULL cursors first, by tie-breaker, with nulls "first", and continues inside them', async () => {
    const [rows] = await admin.query('SELECT id FROM events WHERE note IS NULL ORDER BY id');
    const nulls = (rows as { id: number }[]).map((r) => Number(r.id));
    const first = await job({ cursorField: 'note', nulls: 'first', limit: 2 });
    expect(first).toEqual({ ids: nulls.slice(0, 2), cursor: { value: null, key: String(nulls[1]) } });
    const rest = await job({ cursorField: 'note', nulls: 'first', after: first.cursor });
    expect(rest.ids).toEqual([...nulls.slice(2), 5000]);
    expect(rest.cursor).toEqual({ value: 'updated', key: '5000' });
  });

  it('orders a text cursor by code point, and refuses PAD SPACE collations, JSON cursors and tables without a tie-breaker', async () => {
    const all = await job({ cursorField: 'name', limit: 3 });
    expect(all.ids[0]).toBe(5000); // 'Zed' sorts before every lower-case 'n...' in code-point order
    const next = await job({ cursorField: 'name', after: { value: 'n998', key: '999999' } });
    expect(next.ids).toEqual([521, 6000, 5001]); // 'n999' (id 521), 'new', then 'éa'
    const refusal = (table: string, incremental: Record<string, unknown>) =>
      engine.planExtraction(TENANT, { mappedFields: { crm: { [table]: ['id'] } }, incremental: { crm: { [table]: incremental } } } as unknown as ExtractionRequest);
    await expect(refusal('events', { cursorField: 'label' })).rejects.toEqual(new EngineError('validation', incrementalText(IncrementalText.collationOrder, 'crm.events.label')));
    await expect(refusal('events', { cursorField: 'doc', nulls: 'first' })).rejects.toEqual(new EngineError('validation', incrementalText(IncrementalText.notOrderable, 'crm.events.doc')));
    await expect(refusal('nokey', { cursorField: 'ts' })).rejects.toEqual(new EngineError('validation', incrementalText(IncrementalText.noTieBreaker, 'crm.nokey')));
  });

  it('re-reads exactly a decimal lag window behind the cursor, late rows included', async () => {
    const first = await job({ cursorField: 'amount' }, 'ledger');
    expect(first.ids).toHaveLength(50);
    await admin.query('INSERT INTO ledger VALUES (101, NULL, 5.900), (102, NULL, 5.000), (103, NULL, 7.000)');
    const second = await job({ cursorField: 'amount', lag: '0.5', after: first.cursor }, 'ledger');
    const [truth] = await admin.query('SELECT id FROM ledger WHERE amount >= 6.25 - 0.5 ORDER BY amount, id');
    expect(second.ids).toEqual((truth as { id: number }[]).map((r) => r.id));
    expect(second.ids).toEqual([46, 47, 101, 48, 49, 50, 103]); // 5.75 itself is inside the window
    expect(second.cursor).toEqual({ value: expect.stringMatching(/^7(\.0*)?$/), key: '103' });
  });
});
