/**
 * Incremental extraction through the engine against a real PostgreSQL: chained jobs with limits
 * that cut a block of rows sharing one timestamp, inserts and updates between jobs, text cursors,
 * and the schema facts discovery reports for planning.
 */
import { randomBytes } from 'node:crypto';
import { createEngine, createTenantContext, EngineError, IncrementalText, incrementalText, type CursorPosition, type ExtractionRequest } from '@fetcher/engine';
import { MemoryConnectionStore, MemoryConnectorRegistry } from '@fetcher/engine/memory';
import type { Client } from 'pg';
import type { ConnectorOptions } from '../common/options';
import { adminClient, connectorWithReadPath, seed, testDescriptor } from './testing/test-database';

const suffix = randomBytes(4).toString('hex');
const SCHEMA = `fetcher_inc_${suffix}`;
const TENANT = createTenantContext('acme');
const OPTIONS: ConnectorOptions = { hostSafety: { allowPrivate: true, allowlist: ['127.0.0.1/32', '::1/128', 'localhost'] } };
const TABLE = `${SCHEMA}.events`; // the snapshot key outside public
const TIE = '2026-03-01 10:00:00.123456+02';

const FIXTURES = [
  `CREATE SCHEMA ${SCHEMA}`,
  `CREATE TABLE ${SCHEMA}.events (id int8 PRIMARY KEY, ts timestamptz NOT NULL, name text COLLATE "C" NOT NULL, label text COLLATE "und-x-icu", note text)`,
  `CREATE INDEX ON ${SCHEMA}.events (ts, id)`,
  // 1,000 rows share one timestamp; ids are not in insertion order.
  `INSERT INTO ${SCHEMA}.events SELECT (g * 7919) % 1009, '${TIE}', 'n' || g, 'l' || g, NULL FROM generate_series(1, 1000) g`,
  `INSERT INTO ${SCHEMA}.events VALUES (5000, '2026-03-01 07:00:00Z', 'Zed', 'x', NULL), (5001, '2026-03-01 09:00:00Z', 'éa', 'y', NULL)`,
  // For lag: microsecond timestamps one second apart.
  `CREATE TABLE ${SCHEMA}.late (id int4 PRIMARY KEY, ts timestamptz(6) NOT NULL)`,
  `INSERT INTO ${SCHEMA}.late SELECT g, timestamptz '2026-05-01 00:00:00.000001Z' + g * interval '1 second' FROM generate_series(1, 100) g`,
];
const LATE = `${SCHEMA}.late`;

describe('PostgreSQL incremental extraction through the engine', () => {
  let admin: Client;
  const registry = new MemoryConnectorRegistry().register('POSTGRESQL', { build: (d) => connectorWithReadPath(d, OPTIONS, true) });
  const store = new MemoryConnectionStore();
  const engine = createEngine({ connectorRegistry: registry, connectionStore: store });

  beforeAll(async () => {
    admin = adminClient();
    await seed(admin, FIXTURES);
    await store.create(TENANT, testDescriptor('crm', [SCHEMA]));
  });

  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`).catch(() => undefined);
    await admin.end();
  });

  async function job(incremental: Record<string, unknown>): Promise<{ ids: number[]; cursor: CursorPosition | null | undefined }> {
    const request = { mappedFields: { crm: { [TABLE]: ['id', 'note'] } }, incremental: { crm: { [TABLE]: incremental } } } as unknown as ExtractionRequest;
    const result = await engine.executeExtraction(await engine.planExtraction(TENANT, request));
    const rows = (JSON.parse(new TextDecoder().decode(result.direct?.data)) as { crm: Record<string, { id: number }[]> }).crm[TABLE];
    return { ids: rows.map((r) => r.id), cursor: result.cursors?.crm[TABLE] };
  }

  it('reports the primary key, nullability and text ordering', async () => {
    const snapshot = await engine.discoverSchemaFresh(TENANT, 'crm');
    const events = snapshot.tables.find((t) => t.name === TABLE)!;
    expect(events.primaryKey).toEqual(['id']);
    expect(events.columns).toEqual(
      expect.arrayContaining([
        { name: 'id', kind: 'integer', nativeType: 'int8', nullable: false },
        { name: 'ts', kind: 'datetime', nativeType: 'timestamptz', nullable: false },
        { name: 'name', kind: 'string', nativeType: 'text', nullable: false, ordering: 'binary' },
        { name: 'label', kind: 'string', nativeType: 'text', nullable: true, ordering: 'collation' },
      ]),
    );
  });

  it('chains jobs across a block of rows sharing one timestamp, with inserts and updates in between: every version once', async () => {
    const seen = new Map<number, number>();
    const record = (ids: number[]) => ids.forEach((id) => seen.set(id, (seen.get(id) ?? 0) + 1));
    const first = await job({ cursorField: 'ts', limit: 400 });
    expect(first.ids[0]).toBe(5000); // 07:00Z, before the block at 08:00:00.123456Z (10:00 at +02)
    expect(first.cursor).toEqual({ value: '2026-03-01T08:00:00.123456Z', key: expect.any(String) });
    record(first.ids);
    const second = await job({ cursorField: 'ts', limit: 400, after: first.cursor });
    record(second.ids);
    // Written after both jobs: later timestamps (an insert, and an update of a row already read).
    await admin.query(`INSERT INTO ${SCHEMA}.events VALUES (6000, now(), 'new', 'z', NULL)`);
    await admin.query(`UPDATE ${SCHEMA}.events SET ts = now(), note = 'updated' WHERE id = 5000`);
    const third = await job({ cursorField: 'ts', after: second.cursor });
    record(third.ids);
    expect(first.ids).toHaveLength(400);
    expect(second.ids).toHaveLength(400);
    expect(third.ids).toHaveLength(204); // the block's last 201 (399 + 400 read), 5001 at 09:00Z, then the two written later
    expect(third.ids.slice(-3)).toEqual([5001, 6000, 5000]);
    const { rows } = await admin.query<{ id: string }>(`SELECT id FROM ${SCHEMA}.events`);
    expect([...seen.keys()].sort((a, b) => a - b)).toEqual(rows.map((r) => Number(r.id)).sort((a, b) => a - b));
    expect([...seen].filter(([, n]) => n > 1)).toEqual([[5000, 2]]); // the updated row, once per version
    const fourth = await job({ cursorField: 'ts', after: third.cursor });
    expect(fourth).toEqual({ ids: [], cursor: third.cursor });
  });

  it('reads NULL cursors first, by tie-breaker, with nulls "first", and continues inside them', async () => {
    const { rows } = await admin.query<{ id: string }>(`SELECT id FROM ${SCHEMA}.events WHERE note IS NULL ORDER BY id`);
    const nulls = rows.map((r) => Number(r.id));
    const first = await job({ cursorField: 'note', nulls: 'first', limit: 2 });
    expect(first).toEqual({ ids: nulls.slice(0, 2), cursor: { value: null, key: String(nulls[1]) } });
    const rest = await job({ cursorField: 'note', nulls: 'first', after: first.cursor });
    expect(rest.ids).toEqual([...nulls.slice(2), 5000]); // then the one non-NULL note ('updated')
    expect(rest.cursor).toEqual({ value: 'updated', key: '5000' });
  });

  it('orders a text cursor by code point and refuses one ordered by a collation', async () => {
    const all = await job({ cursorField: 'name', limit: 3 });
    expect(all.ids[0]).toBe(5000); // 'Zed' sorts before every lower-case 'n...' in code-point order
    const next = await job({ cursorField: 'name', after: { value: 'n998', key: '999999' } });
    expect(next.ids).toEqual([521, 6000, 5001]); // 'n999' (id 521), 'new', then 'éa'
    await expect(engine.planExtraction(TENANT, { mappedFields: { crm: { [TABLE]: ['id'] } }, incremental: { crm: { [TABLE]: { cursorField: 'label' } } } })).rejects.toEqual(
      new EngineError('validation', incrementalText(IncrementalText.collationOrder, `crm.${TABLE}.label`)),
    );
  });

  it('re-reads exactly the lag window behind the cursor, late rows included, and moves on past it', async () => {
    const lateJob = async (incremental: Record<string, unknown>) => {
      const request = { mappedFields: { crm: { [LATE]: ['id'] } }, incremental: { crm: { [LATE]: incremental } } } as unknown as ExtractionRequest;
      const result = await engine.executeExtraction(await engine.planExtraction(TENANT, request));
      const rows = (JSON.parse(new TextDecoder().decode(result.direct?.data)) as { crm: Record<string, { id: number }[]> }).crm[LATE];
      return { ids: rows.map((r) => r.id), cursor: result.cursors?.crm[LATE] };
    };
    const first = await lateJob({ cursorField: 'ts' });
    expect(first.cursor).toEqual({ value: '2026-05-01T00:01:40.000001Z', key: '100' });
    // Committed late: one row inside a 10.5 s window, one before it, and one new row.
    await admin.query(`INSERT INTO ${LATE} VALUES (201, '2026-05-01 00:01:35.5Z'), (202, '2026-05-01 00:01:20Z'), (203, '2026-05-01 00:02:00Z')`);
    const second = await lateJob({ cursorField: 'ts', lag: 10.5, after: first.cursor });
    const { rows } = await admin.query<{ id: number }>(
      `SELECT id FROM ${LATE} WHERE ts >= timestamptz '2026-05-01 00:01:40.000001Z' - interval '10.5 seconds' ORDER BY ts, id`,
    );
    expect(second.ids).toEqual(rows.map((r) => r.id));
    expect(second.ids).toEqual([90, 91, 92, 93, 94, 95, 201, 96, 97, 98, 99, 100, 203]);
    expect(second.cursor).toEqual({ value: '2026-05-01T00:02:00Z', key: '203' });
    // Nothing new: the window is re-read and the cursor stays.
    const third = await lateJob({ cursorField: 'ts', lag: 1, after: second.cursor });
    expect(third).toEqual({ ids: [203], cursor: second.cursor });
  });
});
