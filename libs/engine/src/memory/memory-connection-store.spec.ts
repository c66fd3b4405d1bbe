import { EngineError, ErrorText } from '../index';
import { aDescriptor, OTHER_TENANT, TENANT } from '../testing/engine-fixture';
import { MemoryConnectionStore } from './memory-connection-store';

const descriptor = aDescriptor;

describe(MemoryConnectionStore.name, () => {
  it('keys by tenant and name, refuses duplicates with conflict and lists sorted by name', async () => {
    const sut = new MemoryConnectionStore();
    await sut.create(TENANT, descriptor('b'));
    await sut.create(TENANT, descriptor('a'));
    await sut.create(OTHER_TENANT, descriptor('a'));
    await expect(sut.create(TENANT, descriptor('a'))).rejects.toEqual(new EngineError('conflict', ErrorText.connectionExists));
    expect((await sut.list(TENANT)).map((d) => d.configName)).toEqual(['a', 'b']);
    expect(await sut.listPaged(TENANT, { filter: { anything: 1 } })).toEqual({ items: await sut.list(TENANT), total: 2 });
  });

  it('keeps the stored credential and its key version when an update brings none', async () => {
    const sut = new MemoryConnectionStore();
    await sut.create(TENANT, { ...descriptor('a'), keyVersion: 2 }, { ciphertext: 'c2', keyVersion: 2 });
    await sut.update(TENANT, { ...descriptor('a'), host: 'new' });
    expect(await sut.findConnection(TENANT, 'a')).toMatchObject({ host: 'new', keyVersion: 2 });
    expect(sut.protectedCredential(TENANT, 'a')).toEqual({ ciphertext: 'c2', keyVersion: 2 });
    await sut.update(TENANT, { ...descriptor('a'), keyVersion: 3 }, { ciphertext: 'c3', keyVersion: 3 });
    expect(sut.protectedCredential(TENANT, 'a')).toEqual({ ciphertext: 'c3', keyVersion: 3 });
    await expect(sut.update(TENANT, descriptor('missing'))).rejects.toEqual(new EngineError('not_found', ErrorText.connectionNotFound));
  });

  it('finds, updates (renaming) and deletes by id; an empty id never matches', async () => {
    const sut = new MemoryConnectionStore();
    await sut.create(TENANT, descriptor('a', 'x1'));
    await sut.create(TENANT, descriptor('noid', ''));
    expect(await sut.findById(TENANT, '')).toBeUndefined();
    expect(await sut.findById(OTHER_TENANT, 'x1')).toBeUndefined();
    await sut.updateById(TENANT, 'x1', descriptor('renamed', 'x1'));
    expect(await sut.findConnection(TENANT, 'a')).toBeUndefined();
    expect((await sut.findById(TENANT, 'x1'))?.configName).toBe('renamed');
    await expect(sut.updateById(TENANT, 'x1', descriptor('noid', 'x1'))).rejects.toEqual(new EngineError('conflict', ErrorText.connectionExists));
    await sut.deleteById(TENANT, 'x1');
    await sut.delete(TENANT, 'noid');
    expect(await sut.list(TENANT)).toEqual([]);
  });

  it('stores copies: changing what was handed in or handed out changes nothing', async () => {
    const sut = new MemoryConnectionStore();
    const given = { ...descriptor('a') };
    await sut.create(TENANT, given);
    given.host = 'mutated';
    const read = (await sut.findConnection(TENANT, 'a')) as { host: string };
    read.host = 'mutated too';
    expect((await sut.findConnection(TENANT, 'a'))?.host).toBe('h');
  });
});
