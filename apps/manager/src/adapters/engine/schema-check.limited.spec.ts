import { createTenantContext, EngineError } from '@fetcher/engine';
import { aResolvedConnection, FakeSchemaCheck } from '../../testing/fake-connections';
import { dialSlotKey } from './connectivity-check.limited';
import { KeyedSemaphore } from './keyed-semaphore';
import { LimitedSchemaCheck } from './schema-check.limited';

describe(LimitedSchemaCheck.name, () => {
  const tenant = createTenantContext('default');
  const connection = aResolvedConnection('pg-main');
  const tables = new Map([['orders', ['id']]]);

  it('checks within a slot of the shared semaphore and gives it back', async () => {
    const slots = new KeyedSemaphore(1);
    const inner = new FakeSchemaCheck();
    inner.problems.set('pg-main', [{ type: 'TABLE_NOT_FOUND', dataSourceId: 'pg-main', table: 'orders' }]);
    const sut = new LimitedSchemaCheck(inner, slots, 0);
    expect(await sut.check(tenant, connection, tables)).toEqual([{ type: 'TABLE_NOT_FOUND', dataSourceId: 'pg-main', table: 'orders' }]);
    const release = await slots.acquire(dialSlotKey(tenant, connection), 0);
    expect(release).toBeDefined();
    release!();
  });

  it('answers timeout without checking when every slot of the connection is held (by its dials, say)', async () => {
    const slots = new KeyedSemaphore(1);
    const held = await slots.acquire(dialSlotKey(tenant, connection), 0);
    const inner = new FakeSchemaCheck();
    const error = await new LimitedSchemaCheck(inner, slots, 0).check(tenant, connection, tables).catch((e: unknown) => e);
    expect(error).toEqual(new EngineError('timeout', 'no dial slot came free for the schema check'));
    expect(inner.checked).toEqual([]);
    held!();
  });

  it('gives the slot back when the check fails', async () => {
    const slots = new KeyedSemaphore(1);
    const inner = new FakeSchemaCheck();
    inner.failWith = new Error('discovery failed');
    const sut = new LimitedSchemaCheck(inner, slots, 0);
    await expect(sut.check(tenant, connection, tables)).rejects.toThrow('discovery failed');
    inner.failWith = undefined;
    await expect(sut.check(tenant, connection, tables)).resolves.toEqual([]);
  });
});
