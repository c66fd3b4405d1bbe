import { createTenantContext } from '@fetcher/engine';
import { v7 as uuidv7 } from 'uuid';
import type { ConnectionRepository, StoredConnection } from '../ports/connection-repository.port';

const tenant = createTenantContext('default');
const day = (n: number) => new Date(Date.UTC(2026, 0, n));

function aConnection(n: number, overrides: Partial<StoredConnection> = {}): StoredConnection {
  return {
    id: uuidv7(),
    productName: 'demo',
    configName: `db${n}`,
    type: 'POSTGRESQL',
    host: '127.0.0.1',
    port: 5432,
    databaseName: 'postgres',
    userName: 'postgres',
    passwordEncrypted: `ciphertext-${n}`,
    keyVersion: '1',
    createdAt: day(n),
    updatedAt: day(n),
    ...overrides,
  };
}

const code = (promise: Promise<unknown>) => promise.then(() => undefined, (error: { code?: string }) => error.code ?? 'no code');

/**
 * What every ConnectionRepository must do, run against the MongoDB adapter and the embedded one
 * alike. `make` gives a fresh, empty repository (with its indexes, where it has any).
 */
export function connectionRepositoryContract(make: () => ConnectionRepository | Promise<ConnectionRepository>): void {
  let sut: ConnectionRepository;
  beforeEach(async () => {
    sut = await make();
  });

  it('reads back what it stored, by id and by config name, and nothing for an unknown or malformed id', async () => {
    const stored = aConnection(1, { schema: 'public', metadata: { team: 'ops' }, ssl: { mode: 'require', caEncrypted: 'ca-ciphertext' } });
    await sut.insert(tenant, stored);
    expect(await sut.findLiveById(tenant, stored.id)).toEqual(stored);
    expect(await sut.findLiveByName(tenant, 'db1')).toEqual(stored);
    expect(await sut.findLiveById(tenant, uuidv7())).toBeUndefined();
    expect(await sut.findLiveById(tenant, 'not-a-uuid')).toBeUndefined();
    expect(await sut.findLiveByName(tenant, 'db2')).toBeUndefined();
  });

  it('refuses a second live connection with the same config name (FET-1002), and frees the name on delete', async () => {
    const first = aConnection(1);
    await sut.insert(tenant, first);
    expect(await code(sut.insert(tenant, aConnection(2, { configName: 'db1' })))).toBe('FET-1002');
    expect(await sut.softDelete(tenant, first.id, day(9))).toBe(true);
    expect(await sut.softDelete(tenant, first.id, day(9))).toBe(false);
    expect(await sut.findLiveById(tenant, first.id)).toBeUndefined();
    await sut.insert(tenant, aConnection(2, { configName: 'db1' }));
    expect((await sut.findLiveByName(tenant, 'db1'))?.configName).toBe('db1');
  });

  it('replaces a live connection whole (an optional field left out is gone), never a deleted one', async () => {
    const stored = aConnection(1, { schema: 'public' });
    await sut.insert(tenant, stored);
    const { schema: _dropped, ...rest } = stored;
    const replaced: StoredConnection = { ...rest, host: 'db.example.com', updatedAt: day(5) };
    expect(await sut.replace(tenant, replaced)).toBe(true);
    expect(await sut.findLiveById(tenant, stored.id)).toEqual(replaced);
    await sut.softDelete(tenant, stored.id, day(6));
    expect(await sut.replace(tenant, { ...replaced, host: 'other' })).toBe(false);
    expect(await sut.replace(tenant, aConnection(3))).toBe(false);
  });

  it('refuses to rename a connection onto another live config name (FET-1002)', async () => {
    await sut.insert(tenant, aConnection(1));
    const second = aConnection(2);
    await sut.insert(tenant, second);
    expect(await code(sut.replace(tenant, { ...second, configName: 'db1' }))).toBe('FET-1002');
    expect((await sut.findLiveById(tenant, second.id))?.configName).toBe('db2');
  });

  it('assigns a product only to an unassigned live connection', async () => {
    const unassigned = aConnection(1, { productName: '' });
    await sut.insert(tenant, unassigned);
    expect(await sut.assignProduct(tenant, unassigned.id, 'reporter', day(7))).toEqual({ ...unassigned, productName: 'reporter', updatedAt: day(7) });
    expect(await sut.assignProduct(tenant, unassigned.id, 'other', day(8))).toBeUndefined();
    expect((await sut.findLiveById(tenant, unassigned.id))?.productName).toBe('reporter');
    expect(await sut.assignProduct(tenant, uuidv7(), 'reporter', day(8))).toBeUndefined();
  });

  it('lists live connections with filters, in creation order both ways, page by page, with the total', async () => {
    for (const n of [1, 2, 3, 4]) await sut.insert(tenant, aConnection(n, n === 4 ? { productName: '', databaseName: 'crm', metadata: { team: 'ops' } } : {}));
    const deleted = aConnection(5);
    await sut.insert(tenant, deleted);
    await sut.softDelete(tenant, deleted.id, day(9));
    const names = (page: { items: StoredConnection[]; total: number }) => ({ names: page.items.map((c) => c.configName), total: page.total });

    expect(names(await sut.list(tenant, { filter: {}, page: 1, limit: 10, sortOrder: 'asc' }))).toEqual({ names: ['db1', 'db2', 'db3', 'db4'], total: 4 });
    expect(names(await sut.list(tenant, { filter: { productName: 'demo' }, page: 2, limit: 2, sortOrder: 'desc' }))).toEqual({ names: ['db1'], total: 3 });
    expect(names(await sut.list(tenant, { filter: { unassignedOnly: true }, page: 1, limit: 10, sortOrder: 'asc' }))).toEqual({ names: ['db4'], total: 1 });
    expect(names(await sut.list(tenant, { filter: { databaseName: 'crm', metadata: { team: 'ops' } }, page: 1, limit: 10, sortOrder: 'asc' }))).toEqual({ names: ['db4'], total: 1 });
    expect(names(await sut.list(tenant, { filter: { metadata: { constructor: 'x' } }, page: 1, limit: 10, sortOrder: 'asc' }))).toEqual({ names: [], total: 0 });
    expect(names(await sut.list(tenant, { filter: { createdFrom: day(2), createdBefore: day(4) }, page: 1, limit: 10, sortOrder: 'asc' }))).toEqual({ names: ['db2', 'db3'], total: 2 });
    expect(names(await sut.list(tenant, { filter: { type: 'MYSQL' }, page: 1, limit: 10, sortOrder: 'asc' }))).toEqual({ names: [], total: 0 });
  });
}
