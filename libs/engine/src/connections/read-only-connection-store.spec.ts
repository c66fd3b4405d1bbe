import { EngineError } from '../errors';
import type { ConnectionDescriptor, TenantContext } from '../models';
import { CONNECTION_STORE_METHODS } from '../ports';
import { aDescriptor, TENANT } from '../testing/engine-fixture';
import { ReadOnlyConnectionStore } from './read-only-connection-store';

const descriptor = aDescriptor;

class FixedStore extends ReadOnlyConnectionStore {
  readonly listedFor: TenantContext[] = [];

  constructor(private readonly items: readonly ConnectionDescriptor[]) {
    super('this host does not change connections');
  }

  findConnection(_tenant: TenantContext, configName: string): Promise<ConnectionDescriptor | undefined> {
    return Promise.resolve(this.items.find((d) => d.configName === configName));
  }

  findById(_tenant: TenantContext, id: string): Promise<ConnectionDescriptor | undefined> {
    return Promise.resolve(this.items.find((d) => d.id === id));
  }

  list(tenant: TenantContext): Promise<readonly ConnectionDescriptor[]> {
    this.listedFor.push(tenant);
    return Promise.resolve(this.items);
  }
}

describe(ReadOnlyConnectionStore.name, () => {
  it('pages the whole list of the asking tenant as one page', async () => {
    const sut = new FixedStore([descriptor('a'), descriptor('b')]);
    expect(await sut.listPaged(TENANT)).toEqual({ items: [descriptor('a'), descriptor('b')], total: 2 });
    expect(sut.listedFor).toEqual([TENANT]);
  });

  it.each(['create', 'update', 'delete', 'updateById', 'deleteById'] as const)('refuses %s as validation, with the host\'s reason', async (method) => {
    const sut = new FixedStore([]);
    await expect(sut[method]()).rejects.toEqual(new EngineError('validation', 'this host does not change connections'));
  });

  it('provides every method of the port', () => {
    const sut = new FixedStore([]);
    for (const method of CONNECTION_STORE_METHODS) expect(typeof sut[method]).toBe('function');
  });
});
