import type { TenantLifecycleEvent } from './tenant-event';
import { TenantEventDispatcher, type TenantEventHandler } from './tenant-event-dispatcher';

class RecordingHandler implements TenantEventHandler {
  readonly calls: string[] = [];
  constructor(readonly owned: ReadonlySet<string> = new Set()) {}
  ownsTenant(id: string): boolean {
    return this.owned.has(id);
  }
  removeTenant(id: string): Promise<void> {
    this.calls.push(`remove ${id}`);
    return Promise.resolve();
  }
  addTenant(id: string): Promise<void> {
    this.calls.push(`add ${id}`);
    return Promise.resolve();
  }
  reloadTenant(id: string): Promise<void> {
    this.calls.push(`reload ${id}`);
    return Promise.resolve();
  }
  refreshTenant(id: string): Promise<void> {
    this.calls.push(`refresh ${id}`);
    return Promise.resolve();
  }
}

const event = (eventType: string, tenantId = 't1', serviceName: string | null = 'fetcher'): TenantLifecycleEvent =>
  ({ eventType, tenantId, ...(serviceName ? { payload: { service_name: serviceName } } : {}) });

describe(TenantEventDispatcher.name, () => {
  const setup = (owned: string[] = []) => {
    const handler = new RecordingHandler(new Set(owned));
    const waits: number[] = [];
    const sut = new TenantEventDispatcher(handler, { jitterMs: () => 1_234, delay: (ms) => { waits.push(ms); return Promise.resolve(); } });
    return { handler, waits, sut, signal: new AbortController().signal };
  };

  it.each([
    ['tenant.service.associated', 'added', ['add t1'], []],
    ['tenant.service.reactivated', 'added', ['add t1'], [1_234]],
    ['tenant.service.disassociated', 'removed', ['remove t1'], []],
    ['tenant.service.suspended', 'removed', ['remove t1'], []],
    ['tenant.service.purged', 'removed', ['remove t1'], []],
    ['tenant.credentials.rotated', 'removed-and-reloaded', ['remove t1', 'reload t1'], [1_234]],
    ['tenant.connections.updated', 'ignored:no-op', [], []],
  ])('reacts to %s for this service, owned or not', async (type, outcome, calls, waits) => {
    const world = setup();
    expect(await world.sut.dispatch(event(type), world.signal)).toBe(outcome);
    expect(world.handler.calls).toEqual(calls);
    expect(world.waits).toEqual(waits);
  });

  it.each(['tenant.service.associated', 'tenant.service.purged', 'tenant.credentials.rotated', 'tenant.cache.invalidate'])(
    'ignores %s addressed to another service, or to none', async (type) => {
      const world = setup(['t1']);
      expect(await world.sut.dispatch(event(type, 't1', 'ledger'), world.signal)).toBe('ignored:other-service');
      expect(await world.sut.dispatch(event(type, 't1', null), world.signal)).toBe('ignored:other-service');
      expect(world.handler.calls).toEqual([]);
    },
  );

  it.each([
    ['tenant.suspended', 'removed', ['remove t1']],
    ['tenant.deleted', 'removed', ['remove t1']],
    ['tenant.activated', 'refreshed', ['refresh t1']],
    ['tenant.updated', 'refreshed', ['refresh t1']],
  ])('acts on the tenant-level %s only for an owned tenant, whatever the payload', async (type, outcome, calls) => {
    const world = setup(['t1']);
    expect(await world.sut.dispatch(event(type, 't1', null), world.signal)).toBe(outcome);
    expect(await world.sut.dispatch(event(type, 't2', null), world.signal)).toBe('ignored:not-owned');
    expect(world.handler.calls).toEqual(calls);
  });

  it('does nothing on tenant.created: tenants load lazily', async () => {
    const world = setup(['t1']);
    expect(await world.sut.dispatch(event('tenant.created'), world.signal)).toBe('ignored:no-op');
    expect(world.handler.calls).toEqual([]);
  });

  it('reloads after a cache invalidation only a tenant it owned; otherwise only evicts', async () => {
    const world = setup(['t1']);
    expect(await world.sut.dispatch(event('tenant.cache.invalidate', 't1'), world.signal)).toBe('removed-and-reloaded');
    expect(await world.sut.dispatch(event('tenant.cache.invalidate', 't2'), world.signal)).toBe('removed');
    expect(world.handler.calls).toEqual(['remove t1', 'reload t1', 'remove t2']);
  });

  it('skips an unknown type', async () => {
    const world = setup(['t1']);
    expect(await world.sut.dispatch(event('tenant.exploded'), world.signal)).toBe('ignored:unknown-type');
    expect(world.handler.calls).toEqual([]);
  });

  it('does not reload once closing has begun', async () => {
    const world = setup();
    const closing = new AbortController();
    closing.abort();
    expect(await world.sut.dispatch(event('tenant.credentials.rotated'), closing.signal)).toBe('removed');
    expect(await world.sut.dispatch(event('tenant.service.reactivated'), closing.signal)).toBe('ignored:no-op');
    expect(world.handler.calls).toEqual(['remove t1']);
  });
});
