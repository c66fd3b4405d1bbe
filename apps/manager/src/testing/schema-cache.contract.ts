import { randomUUID } from 'node:crypto';
import { createTenantContext, type SchemaCache, type SchemaSnapshot } from '@fetcher/engine';
import { scopeFor, withSchemaScopes } from '../engine/schema-scope';
import type { SchemaCacheInvalidator } from '../ports/schema-cache-invalidator.port';
import { FakeClock } from './fake-clock';

/** What the cache under test is built with: its clock and its TTL. */
export interface SchemaCacheSetup {
  readonly clock: FakeClock;
  readonly ttlSeconds: number;
}

const tenant = createTenantContext('default');
const TTL_SECONDS = 60;

/** Runs `work` inside a validate-schema request asking for `schemas` of the PostgreSQL connection `name`. */
const within = <T>(name: string, schemas: readonly (string | undefined)[], work: () => Promise<T>) =>
  withSchemaScopes(new Map([[name, scopeFor('POSTGRESQL', schemas)]]), work);
const snapshot = (configName: string, table = 'accounts'): SchemaSnapshot => ({ configName, tables: [{ name: table, fields: ['name', 'id'] }] });

/**
 * What the Manager's validate-schema cache must do, with Redis and on its in-process backend (the
 * standalone service, and any Manager while Redis is away) alike: entries per config name and
 * requested scope, living for the TTL, dropped for every scope by an invalidation, and neither read
 * nor written outside a validate-schema request. Every config name is unique to its test.
 */
export function schemaCacheContract(make: (setup: SchemaCacheSetup) => (SchemaCache & SchemaCacheInvalidator) | Promise<SchemaCache & SchemaCacheInvalidator>): void {
  let clock: FakeClock;
  let sut: SchemaCache & SchemaCacheInvalidator;
  beforeEach(async () => {
    clock = new FakeClock('2026-03-01T10:00:00Z');
    sut = await make({ clock, ttlSeconds: TTL_SECONDS });
  });
  const name = () => `pg-${randomUUID().slice(0, 8)}`;

  it('answers a miss, then what was put, with its fields sorted and the time it was cached', async () => {
    const pg = name();
    expect(await within(pg, [undefined], () => sut.getSchema(tenant, pg))).toBeUndefined();
    await within(pg, [undefined], () => sut.putSchema(tenant, snapshot(pg)));
    clock.advance(1_000);
    expect(await within(pg, [undefined], () => sut.getSchema(tenant, pg))).toEqual({
      configName: pg,
      tables: [{ name: 'accounts', fields: ['id', 'name'] }],
      capturedAt: '2026-03-01T10:00:00.000Z',
    });
  });

  it('keeps the column facts and primary key that job creation checks an incremental cursor against', async () => {
    const pg = name();
    const table = {
      name: 'orders',
      fields: ['id', 'updated_at'],
      primaryKey: ['id'],
      columns: [
        { name: 'id', kind: 'integer' as const, nativeType: 'int8', nullable: false },
        { name: 'updated_at', kind: 'string' as const, nativeType: 'text', nullable: true, ordering: 'binary' as const },
      ],
    };
    await within(pg, [undefined], () => sut.putSchema(tenant, { configName: pg, tables: [table] }));
    expect((await within(pg, [undefined], () => sut.getSchema(tenant, pg)))?.tables).toEqual([table]);
  });

  it('keeps one entry per requested scope, and a later put replaces the entry of its scope', async () => {
    const pg = name();
    await within(pg, [undefined], () => sut.putSchema(tenant, snapshot(pg, 'in_public')));
    await within(pg, ['sales'], () => sut.putSchema(tenant, snapshot(pg, 'in_sales')));
    await within(pg, ['sales'], () => sut.putSchema(tenant, snapshot(pg, 'in_sales_again')));
    expect((await within(pg, ['public'], () => sut.getSchema(tenant, pg)))?.tables.map((t) => t.name)).toEqual(['in_public']);
    expect((await within(pg, ['sales'], () => sut.getSchema(tenant, pg)))?.tables.map((t) => t.name)).toEqual(['in_sales_again']);
    expect(await within(pg, ['sales', 'hr'], () => sut.getSchema(tenant, pg))).toBeUndefined();
  });

  it('forgets an entry once its TTL has passed', async () => {
    const pg = name();
    await within(pg, [undefined], () => sut.putSchema(tenant, snapshot(pg)));
    clock.advance(TTL_SECONDS * 1_000 - 1);
    expect(await within(pg, [undefined], () => sut.getSchema(tenant, pg))).toBeDefined();
    clock.advance(1);
    expect(await within(pg, [undefined], () => sut.getSchema(tenant, pg))).toBeUndefined();
  });

  it('drops every scope of the invalidated names and keeps the others', async () => {
    const [a, b, kept] = [name(), name(), name()];
    for (const pg of [a, b, kept]) {
      await within(pg, [undefined], () => sut.putSchema(tenant, snapshot(pg)));
      await within(pg, ['sales'], () => sut.putSchema(tenant, snapshot(pg)));
    }
    await sut.invalidate(tenant, [a, b, a]);
    for (const pg of [a, b]) {
      expect(await within(pg, [undefined], () => sut.getSchema(tenant, pg))).toBeUndefined();
      expect(await within(pg, ['sales'], () => sut.getSchema(tenant, pg))).toBeUndefined();
    }
    expect(await within(kept, ['sales'], () => sut.getSchema(tenant, kept))).toBeDefined();
    await expect(sut.invalidate(tenant, [])).resolves.toBeUndefined();
  });

  it('neither reads nor writes outside a validate-schema request', async () => {
    const pg = name();
    await sut.putSchema(tenant, snapshot(pg));
    expect(await within(pg, [undefined], () => sut.getSchema(tenant, pg))).toBeUndefined();
    await within(pg, [undefined], () => sut.putSchema(tenant, snapshot(pg)));
    expect(await sut.getSchema(tenant, pg)).toBeUndefined();
    // A request about another name does not open this one's entry either.
    expect(await within(name(), [undefined], () => sut.getSchema(tenant, pg))).toBeUndefined();
  });
}
