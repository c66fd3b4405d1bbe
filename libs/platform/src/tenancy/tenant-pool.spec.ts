import { TenantPool, type TenantPoolDisposeReason, type TenantPoolOptions } from './tenant-pool';

interface Fake {
  readonly tenantId: string;
  readonly serial: number;
}

function setup(overrides: Partial<TenantPoolOptions<Fake>> = {}) {
  let now = 1_000;
  let serial = 0;
  const opens: string[] = [];
  const disposed: Array<{ tenantId: string; serial: number; reason: TenantPoolDisposeReason }> = [];
  const pool = new TenantPool<Fake>({
    name: 'test',
    maxTenants: 2,
    idleTimeoutMs: 100,
    sweepIntervalMs: 0,
    now: () => now,
    open: (tenantId) => {
      opens.push(tenantId);
      return Promise.resolve({ tenantId, serial: ++serial });
    },
    dispose: (tenantId, resource, reason) => void disposed.push({ tenantId, serial: resource.serial, reason }),
    ...overrides,
  });
  return { pool, opens, disposed, advance: (ms: number) => void (now += ms) };
}

/** A promise and its settle functions, to hold an open in flight. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe(TenantPool.name, () => {
  it('opens a tenant once and shares the resource between concurrent acquires', async () => {
    const gate = deferred<Fake>();
    const { pool, opens } = setup({ open: (tenantId) => (opens.push(tenantId), gate.promise) });
    const both = Promise.all([pool.acquire('a'), pool.acquire('a')]);
    gate.resolve({ tenantId: 'a', serial: 1 });
    const [first, second] = await both;
    expect(opens).toEqual(['a']);
    expect(first.resource).toBe(second.resource);
    first.release();
    second.release();
    await pool.closeAll();
  });

  it('keeps nothing after a failed open, so the next acquire tries again', async () => {
    let fail = true;
    const { pool, opens } = setup({
      open: (tenantId) => (opens.push(tenantId), fail ? Promise.reject(new Error('down')) : Promise.resolve({ tenantId, serial: 1 })),
    });
    await expect(Promise.all([pool.acquire('a'), pool.acquire('a')])).rejects.toThrow('down');
    expect(pool.has('a')).toBe(false);
    fail = false;
    const lease = await pool.acquire('a');
    expect(lease.resource.serial).toBe(1);
    expect(opens).toEqual(['a', 'a']);
    lease.release();
    await pool.closeAll();
  });

  it('evicts the least recently used idle entry when a new tenant would exceed the cap', async () => {
    const { pool, disposed } = setup();
    await pool.use('a', () => Promise.resolve());
    await pool.use('b', () => Promise.resolve());
    await pool.use('a', () => Promise.resolve()); // a is now more recent than b
    await pool.use('c', () => Promise.resolve());
    expect(pool.tenants().sort()).toEqual(['a', 'c']);
    expect(disposed).toEqual([{ tenantId: 'b', serial: 2, reason: 'lru' }]);
    expect(pool.stats()).toMatchObject({ size: 2, opened: 3, disposed: { lru: 1 } });
    await pool.closeAll();
  });

  it('grows past the cap rather than evict an entry in use (the cap is soft)', async () => {
    const { pool, disposed } = setup();
    const a = await pool.acquire('a');
    const b = await pool.acquire('b');
    const c = await pool.acquire('c');
    expect(pool.size).toBe(3);
    expect(disposed).toEqual([]);
    for (const lease of [a, b, c]) lease.release();
    await pool.use('d', () => Promise.resolve());
    expect(disposed.map((d) => d.tenantId)).toEqual(['a', 'b']);
    await pool.closeAll();
  });

  it('sweeps entries unused for the idle timeout, but not leased ones', async () => {
    const { pool, disposed, advance } = setup({ maxTenants: 10 });
    await pool.use('a', () => Promise.resolve());
    const held = await pool.acquire('b');
    advance(99);
    expect(await pool.sweepIdle()).toBe(0);
    advance(1);
    expect(await pool.sweepIdle()).toBe(1);
    expect(disposed).toEqual([{ tenantId: 'a', serial: 1, reason: 'idle' }]);
    expect(pool.tenants()).toEqual(['b']);
    held.release();
    await pool.closeAll();
  });

  it('evict takes a leased entry out at once and disposes it when the lease is released', async () => {
    const { pool, disposed, opens } = setup();
    const lease = await pool.acquire('a');
    let evicted = false;
    const eviction = pool.evict('a').then(() => (evicted = true));
    expect(pool.has('a')).toBe(false);
    await Promise.resolve();
    expect(evicted).toBe(false);
    expect(disposed).toEqual([]);
    // A new acquire gets a fresh resource, not the one being evicted.
    const fresh = await pool.acquire('a');
    expect(fresh.resource.serial).toBe(2);
    lease.release();
    await eviction;
    expect(disposed).toEqual([{ tenantId: 'a', serial: 1, reason: 'evicted' }]);
    expect(opens).toEqual(['a', 'a']);
    fresh.release();
    await pool.closeAll();
  });

  it('evicting a tenant that is still opening disposes it once the open finishes', async () => {
    const gate = deferred<Fake>();
    const { pool, disposed } = setup({ open: () => gate.promise });
    const acquiring = pool.acquire('a');
    const eviction = pool.evict('a');
    gate.resolve({ tenantId: 'a', serial: 7 });
    const lease = await acquiring;
    lease.release();
    await eviction;
    expect(disposed).toEqual([{ tenantId: 'a', serial: 7, reason: 'evicted' }]);
  });

  it('closeAll disposes every entry once, reports dispose failures, and refuses later acquires', async () => {
    const errors: string[] = [];
    const { pool } = setup({
      maxTenants: 5,
      dispose: (tenantId) => Promise.reject(new Error(`close ${tenantId}`)),
      onDisposeError: (tenantId) => void errors.push(tenantId),
    });
    await pool.use('a', () => Promise.resolve());
    await pool.use('b', () => Promise.resolve());
    await pool.closeAll();
    await pool.closeAll();
    expect(errors.sort()).toEqual(['a', 'b']);
    expect(pool.stats().disposed.closed).toBe(2);
    await expect(pool.acquire('a')).rejects.toThrow('pool is closed');
  });

  it('a released lease released again does not free someone else’s hold', async () => {
    const { pool, disposed } = setup({ maxTenants: 1 });
    const first = await pool.acquire('a');
    const second = await pool.acquire('a');
    first.release();
    first.release();
    await pool.use('b', () => Promise.resolve());
    expect(disposed).toEqual([]);
    second.release();
    await pool.closeAll();
  });
});
