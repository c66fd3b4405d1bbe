import { type ConnectionDescriptor, withConnectionSecrets } from '@fetcher/engine';
import { TemplateConnector } from '@fetcher/engine/memory';
import { ConnectorCache, connectorKey, type HostRecheck } from './connector-cache';

describe(ConnectorCache.name, () => {
  const base: ConnectionDescriptor = withConnectionSecrets(
    { id: 'c1', configName: 'crm', type: 'postgresql', host: 'db.example.com', port: 5432, databaseName: 'd', userName: 'u', hostAttributes: { schemaScope: ['public'] } },
    { password: 'secret-1' },
  );
  const signal = () => new AbortController().signal;
  const passes: HostRecheck = () => Promise.resolve();
  const cacheOf = (settings = { idleMs: 30_000, maxIdle: 4 }, recheck: HostRecheck = passes) => new ConnectorCache(settings, recheck);

  afterEach(() => jest.useRealTimers());

  it('hands a kept connector to the next job of the same tenant and connection, once, after a ping', async () => {
    const sut = cacheOf();
    const connector = new TemplateConnector();
    await sut.give('t1', base, connector);
    expect(await sut.take('t1', base, signal())).toBe(connector);
    expect(connector.testCalls).toBe(1);
    expect(await sut.take('t1', base, signal())).toBeUndefined(); // one job at a time
    expect(connector.closeCount).toBe(0);
  });

  /** `base` with some fields changed (a spread alone would drop the non-enumerable attributes and secrets). */
  const variant = (changes: Partial<ConnectionDescriptor>, secrets = base.secrets): ConnectionDescriptor =>
    withConnectionSecrets({ ...base, hostAttributes: base.hostAttributes, ...changes }, secrets);

  it('keys by tenant, connection and every credential and connection field', async () => {
    const variants: [string, ConnectionDescriptor][] = [
      ['t2', base],
      ['t1', variant({}, { password: 'secret-2' })],
      ['t1', variant({}, { password: 'secret-1', ssl: { ca: 'another CA' } })],
      ['t1', variant({ host: 'db2.example.com' })],
      ['t1', variant({ port: 5433 })],
      ['t1', variant({ userName: 'v' })],
      ['t1', variant({ databaseName: 'e' })],
      ['t1', variant({ sslMode: 'require' })],
      ['t1', variant({ keyVersion: 2 })],
      ['t1', variant({ id: 'c2' })],
      ['t1', variant({ hostAttributes: { schemaScope: ['sales'] } })],
      ['t1', variant({ hostAttributes: { schemaScope: ['public'], internal: true } })],
    ];
    for (const [tenant, d] of variants) {
      const sut = cacheOf();
      await sut.give('t1', base, new TemplateConnector());
      expect({ tenant, d, kept: await sut.take(tenant, d, signal()) }).toEqual({ tenant, d, kept: undefined });
    }
    // An equal descriptor, built anew, finds it.
    const sut = cacheOf();
    const connector = new TemplateConnector();
    await sut.give('t1', base, connector);
    expect(await sut.take('t1', variant({}, { password: 'secret-1' }), signal())).toBe(connector);
    // Equal attributes in another key order are the same connection.
    const reordered = variant({ hostAttributes: { metadata: { b: 1, a: 2 }, schemaScope: ['public'] } });
    const same = variant({ hostAttributes: { schemaScope: ['public'], metadata: { a: 2, b: 1 } } });
    expect(connectorKey('t1', reordered)).toEqual(connectorKey('t1', same));
  });

  it('closes all that was kept for a connection, every scope, once a job comes with changed credentials; other connections stay', async () => {
    const sut = cacheOf();
    const [old, otherScope, otherConnection] = [new TemplateConnector(), new TemplateConnector(), new TemplateConnector()];
    await sut.give('t1', base, old);
    await sut.give('t1', variant({ hostAttributes: { schemaScope: ['sales'] } }), otherScope);
    await sut.give('t1', variant({ id: 'c2', configName: 'erp' }), otherConnection);
    expect(await sut.take('t1', variant({}, { password: 'rotated' }), signal())).toBeUndefined();
    expect([old.closeCount, otherScope.closeCount, otherConnection.closeCount]).toEqual([1, 1, 0]);
    expect(sut.size).toBe(1);
  });

  it('keeps one connection\'s connectors of different schema scopes apart, each for its own scope', async () => {
    const sut = cacheOf();
    const [pub, sales] = [new TemplateConnector(), new TemplateConnector()];
    const salesScope = variant({ hostAttributes: { schemaScope: ['sales'] } });
    await sut.give('t1', base, pub);
    await sut.give('t1', salesScope, sales);
    expect(await sut.take('t1', base, signal())).toBe(pub);
    expect(await sut.take('t1', salesScope, signal())).toBe(sales);
  });

  it('never puts a password in the key', () => {
    expect(JSON.stringify(connectorKey('t1', base))).not.toContain('secret-1');
  });

  it('closes an idle connector when its idle time runs out', async () => {
    jest.useFakeTimers();
    const sut = cacheOf({ idleMs: 1_000, maxIdle: 4 });
    const connector = new TemplateConnector();
    await sut.give('t1', base, connector);
    await jest.advanceTimersByTimeAsync(999);
    expect(connector.closeCount).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(connector.closeCount).toBe(1);
    expect(await sut.take('t1', base, signal())).toBeUndefined();
  });

  it('restarts the idle time each time a connector comes back', async () => {
    jest.useFakeTimers();
    const sut = cacheOf({ idleMs: 1_000, maxIdle: 4 });
    const connector = new TemplateConnector();
    await sut.give('t1', base, connector);
    await jest.advanceTimersByTimeAsync(800);
    expect(await sut.take('t1', base, signal())).toBe(connector);
    await sut.give('t1', base, connector);
    await jest.advanceTimersByTimeAsync(800);
    expect(connector.closeCount).toBe(0);
    await jest.advanceTimersByTimeAsync(200);
    expect(connector.closeCount).toBe(1);
  });

  it('closes instead of keeping when reuse is off (idle 0)', async () => {
    const sut = cacheOf({ idleMs: 0, maxIdle: 4 });
    const connector = new TemplateConnector();
    expect(sut.enabled).toBe(false);
    await sut.give('t1', base, connector);
    expect(connector.closeCount).toBe(1);
    expect(sut.size).toBe(0);
  });

  it('keeps at most maxIdle, closing the least recently returned', async () => {
    const sut = cacheOf({ idleMs: 30_000, maxIdle: 2 });
    const [a, b, c] = [new TemplateConnector(), new TemplateConnector(), new TemplateConnector()];
    await sut.give('t1', base, a);
    await sut.give('t2', base, b);
    await sut.give('t3', base, c);
    expect([a.closeCount, b.closeCount, c.closeCount]).toEqual([1, 0, 0]);
    expect(sut.size).toBe(2);
  });

  it('closes a kept connector that fails the ping and hands out nothing', async () => {
    const sut = cacheOf();
    const broken = new TemplateConnector({ testErr: new Error('server closed the connection') });
    await sut.give('t1', base, broken);
    expect(await sut.take('t1', base, signal())).toBeUndefined();
    expect(broken.closeCount).toBe(1);
    expect(sut.size).toBe(0);
  });

  it('runs host safety on every reuse, and closes a connector whose host no longer passes', async () => {
    const checked: string[] = [];
    let allowed = true;
    const sut = cacheOf(undefined, (d) => {
      checked.push(d.host);
      return allowed ? Promise.resolve() : Promise.reject(new Error('host not allowed'));
    });
    const connector = new TemplateConnector();
    await sut.give('t1', base, connector);
    expect(await sut.take('t1', base, signal())).toBe(connector);
    await sut.give('t1', base, connector);
    allowed = false;
    expect(await sut.take('t1', base, signal())).toBeUndefined();
    expect(checked).toEqual(['db.example.com', 'db.example.com']);
    expect(connector.closeCount).toBe(1);
    expect(connector.testCalls).toBe(1); // not pinged once the host was refused
  });

  it('closes a removed tenant\'s connectors only', async () => {
    const sut = cacheOf();
    const [mine, other] = [new TemplateConnector(), new TemplateConnector()];
    await sut.give('gone', base, mine);
    await sut.give('kept', base, other);
    await sut.evictTenant('gone');
    expect([mine.closeCount, other.closeCount]).toEqual([1, 0]);
    expect(await sut.take('kept', base, signal())).toBe(other);
  });

  it('closes everything at shutdown and keeps nothing afterwards', async () => {
    const sut = cacheOf();
    const [idle, late] = [new TemplateConnector(), new TemplateConnector()];
    await sut.give('t1', base, idle);
    await sut.onApplicationShutdown();
    expect(idle.closeCount).toBe(1);
    await sut.give('t1', base, late);
    expect(late.closeCount).toBe(1);
    expect(sut.size).toBe(0);
  });

  it('survives a connector whose close rejects', async () => {
    const sut = cacheOf({ idleMs: 30_000, maxIdle: 1 });
    const failing = new TemplateConnector({ closeErr: new Error('close failed') });
    await sut.give('t1', base, failing);
    await expect(sut.give('t2', base, new TemplateConnector())).resolves.toBeUndefined();
    expect(failing.closeCount).toBe(1);
  });
});
