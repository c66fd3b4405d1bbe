import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyRing } from '@fetcher/platform';
import { AppError } from '../../errors/app-error';
import type { StoredConnection } from '../../ports/connection-repository.port';
import { MemoryConnectionRepository } from './connection-repository.memory';

const tenant = { tenantId: 'default' };
const ring = KeyRing.create({ current: { version: '1', key: randomBytes(32) } });

function aConnection(n: number, overrides: Partial<StoredConnection> = {}): StoredConnection {
  const { ciphertext, keyVersion } = ring.encryptCredential(`secret-${n}`);
  return {
    id: `0193a1b2-0000-7000-8000-00000000000${n}`,
    productName: 'demo',
    configName: `db${n}`,
    type: 'POSTGRESQL',
    host: '127.0.0.1',
    port: 5432,
    databaseName: 'postgres',
    userName: 'postgres',
    passwordEncrypted: ciphertext,
    keyVersion,
    createdAt: new Date(Date.UTC(2026, 0, n)),
    updatedAt: new Date(Date.UTC(2026, 0, n)),
    ...overrides,
  };
}

describe(MemoryConnectionRepository.name, () => {
  let dir: string;
  let sut: MemoryConnectionRepository;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fetcher-connections-'));
    sut = await MemoryConnectionRepository.open(join(dir, 'connections'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a second live connection with the same config name (409/FET-1002), not after a delete', async () => {
    await sut.insert(tenant, aConnection(1));
    const clash = await sut.insert(tenant, aConnection(2, { configName: 'db1' })).catch((e: unknown) => e);
    expect(clash).toBeInstanceOf(AppError);
    expect((clash as AppError).code).toBe('FET-1002');
    expect(await sut.softDelete(tenant, aConnection(1).id, new Date())).toBe(true);
    await expect(sut.insert(tenant, aConnection(2, { configName: 'db1' }))).resolves.toBeUndefined();
    expect(await sut.findLiveById(tenant, aConnection(1).id)).toBeUndefined();
  });

  it('lists live connections with filters, order and pages', async () => {
    for (const n of [1, 2, 3, 4]) await sut.insert(tenant, aConnection(n, n === 4 ? { productName: '' } : {}));
    const page = await sut.list(tenant, { filter: { productName: 'demo' }, page: 2, limit: 2, sortOrder: 'desc' });
    expect({ ids: page.items.map((c) => c.configName), total: page.total }).toEqual({ ids: ['db1'], total: 3 });
    const unassigned = await sut.list(tenant, { filter: { unassignedOnly: true }, page: 1, limit: 10, sortOrder: 'asc' });
    expect(unassigned.items.map((c) => c.configName)).toEqual(['db4']);
    expect(await sut.assignProduct(tenant, aConnection(4).id, 'reporter', new Date())).toMatchObject({ productName: 'reporter' });
    expect(await sut.assignProduct(tenant, aConnection(4).id, 'other', new Date())).toBeUndefined();
  });

  it('keeps connections across a reopen', async () => {
    const stored = aConnection(1);
    await sut.insert(tenant, stored);
    const reopened = await MemoryConnectionRepository.open(join(dir, 'connections'));
    expect(await reopened.findLiveByName(tenant, 'db1')).toEqual(stored);
    expect(reopened.live()).toEqual([stored]);
  });
});
