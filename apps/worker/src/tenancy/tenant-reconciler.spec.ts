import { TenantManagerError, type TenantSummary } from '@fetcher/platform';
import { TenantConsumers, type TenantQueueConsumer } from './tenant-consumers';
import { TenantReconciler } from './tenant-reconciler';

const quiet = { log: () => undefined, warn: () => undefined };

/** A registry over fake resources: `failing` tenants cannot connect, `inactive` ones are suspended. */
function registry(options: { failing?: Set<string>; inactive?: Set<string> } = {}) {
  const stopped: string[] = [];
  const released: string[] = [];
  const retries: (() => void)[] = [];
  const consumers = new TenantConsumers<string>({
    loadConfig: (id) => (options.inactive?.has(id) ? Promise.reject(new TenantManagerError('tenant_suspended', { tenantId: id })) : Promise.resolve({})),
    acquireConnection: (id) => (options.failing?.has(id)
      ? Promise.reject(new Error('refused'))
      : options.inactive?.has(id)
        ? Promise.reject(new TenantManagerError('tenant_suspended', { tenantId: id }))
        : Promise.resolve({ tenantId: id, resource: `conn-${id}`, release: () => undefined })),
    startConsumer: (id): Promise<TenantQueueConsumer> => Promise.resolve({ stop: () => (stopped.push(id), Promise.resolve()) }),
    releaseTenant: (id) => (released.push(id), Promise.resolve()),
    invalidateConfig: () => undefined,
    logger: quiet,
    schedule: (run) => (retries.push(run), { cancel: () => undefined }),
  });
  return { consumers, stopped, released, retries };
}

const list = (...ids: string[]): TenantSummary[] => ids.map((id) => ({ id, name: id, status: 'active' }));

describe(TenantReconciler.name, () => {
  it('starts every listed tenant, and removes a known tenant only after three successful lists without it', async () => {
    const { consumers, stopped, released } = registry();
    let answer = list('a', 'b');
    const results: string[] = [];
    const reconciler = new TenantReconciler({
      listActive: () => Promise.resolve(answer), consumers, intervalMs: 3_600_000, logger: quiet, onPass: (r) => results.push(r),
    });
    await reconciler.pass();
    expect(consumers.consuming().sort()).toEqual(['a', 'b']);

    answer = list('a');
    await reconciler.pass();
    await reconciler.pass();
    expect(consumers.isConsuming('b')).toBe(true);
    await reconciler.pass();
    expect(consumers.isConsuming('b')).toBe(false);
    expect(stopped).toEqual(['b']);
    expect(released).toEqual(['b']);
    expect(results).toEqual(['ok', 'ok', 'ok', 'ok']);
    await reconciler.stop();
  });

  it('stops nothing when the list fails, and a miss in between starts the count again', async () => {
    const { consumers } = registry();
    let answer: TenantSummary[] | Error = list('a', 'b');
    const results: string[] = [];
    const reconciler = new TenantReconciler({
      listActive: () => (answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer)),
      consumers, intervalMs: 3_600_000, logger: quiet, onPass: (r) => results.push(r),
    });
    await reconciler.pass();
    answer = list('a');
    await reconciler.pass();
    await reconciler.pass();
    answer = new TenantManagerError('unreachable');
    await reconciler.pass();
    await reconciler.pass();
    answer = list('a', 'b');
    await reconciler.pass();
    answer = list('a');
    await reconciler.pass();
    await reconciler.pass();
    expect(consumers.isConsuming('b')).toBe(true);
    expect(results.filter((r) => r === 'tm_unreachable')).toHaveLength(2);
    await reconciler.stop();
  });

  it('retries the initial sync until the tenant-manager answers', async () => {
    const { consumers } = registry();
    let calls = 0;
    const waits: number[] = [];
    const reconciler = new TenantReconciler({
      listActive: () => (++calls < 3 ? Promise.reject(new Error('down')) : Promise.resolve(list('a'))),
      consumers, intervalMs: 3_600_000, logger: quiet, sleep: (ms) => (waits.push(ms), Promise.resolve()),
    });
    expect(await reconciler.start()).toBe('ok');
    expect(calls).toBe(3);
    expect(waits).toHaveLength(2);
    expect(waits[1]).toBeGreaterThanOrEqual(1_000); // base 1 s, doubling, jitter down to half
    expect(consumers.isConsuming('a')).toBe(true);
    await reconciler.stop();
  });
});

describe(TenantConsumers.name, () => {
  it('starts a tenant once however many triggers ask at the same time', async () => {
    let starts = 0;
    const consumers = new TenantConsumers<string>({
      loadConfig: () => Promise.resolve({}),
      acquireConnection: (id) => Promise.resolve({ tenantId: id, resource: id, release: () => undefined }),
      startConsumer: () => (starts++, Promise.resolve({ stop: () => Promise.resolve() })),
      releaseTenant: () => Promise.resolve(),
      invalidateConfig: () => undefined,
      logger: quiet,
    });
    await Promise.all([consumers.ensureStarted('a'), consumers.ensureStarted('a'), consumers.addTenant('a')]);
    expect(starts).toBe(1);
  });

  it('retries a tenant that cannot connect, alone, and logs it degraded after three failures', async () => {
    const failing = new Set(['bad']);
    const warnings: string[] = [];
    const retries: (() => void)[] = [];
    const logged = new TenantConsumers<string>({
      loadConfig: () => Promise.resolve({}),
      acquireConnection: (id) => (failing.has(id) ? Promise.reject(new Error('refused')) : Promise.resolve({ tenantId: id, resource: id, release: () => undefined })),
      startConsumer: () => Promise.resolve({ stop: () => Promise.resolve() }),
      releaseTenant: () => Promise.resolve(),
      invalidateConfig: () => undefined,
      logger: { log: () => undefined, warn: (m) => warnings.push(m) },
      schedule: (run) => (retries.push(run), { cancel: () => undefined }),
    });
    expect(await logged.ensureStarted('bad')).toBe(false);
    expect(await logged.ensureStarted('good')).toBe(true);
    for (let i = 0; i < 2; i++) {
      retries.shift()!();
      await logged.settled('bad');
    }
    expect(warnings.filter((w) => w.includes('degraded'))).toHaveLength(1);
    failing.delete('bad');
    retries.shift()!();
    await logged.settled('bad');
    expect(logged.isConsuming('bad')).toBe(true);
    expect(logged.isConsuming('good')).toBe(true);
  });

  it('removes a tenant found suspended while starting it, releasing its resources', async () => {
    const { consumers, released } = registry({ inactive: new Set(['gone']) });
    await consumers.addTenant('gone');
    expect(consumers.ownsTenant('gone')).toBe(false);
    expect(released).toEqual(['gone']);
  });
});
