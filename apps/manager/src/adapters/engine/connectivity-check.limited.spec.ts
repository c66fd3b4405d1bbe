import { createTenantContext } from '@fetcher/engine';
import type { ConnectivityCheck, ConnectivityOutcome } from '../../ports/connectivity-check.port';
import { aResolvedConnection } from '../../testing/fake-connections';
import { LimitedConnectivityCheck } from './connectivity-check.limited';

/** A dial that stays open until the test settles it, counting how many are open at once. */
class HeldDials implements ConnectivityCheck {
  readonly open: { name: string; timeoutMs: number; settle: (outcome: ConnectivityOutcome) => void }[] = [];
  dials = 0;
  check(_tenant: unknown, connection: { configName: string }, timeoutMs: number): Promise<ConnectivityOutcome> {
    this.dials += 1;
    return new Promise((resolve) => this.open.push({ name: connection.configName, timeoutMs, settle: resolve }));
  }
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe(LimitedConnectivityCheck.name, () => {
  const tenant = createTenantContext('default');
  const pg = aResolvedConnection('pg-main');
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('lets two dials through per connection, queues the rest, and hands each freed slot to the next', async () => {
    const inner = new HeldDials();
    const sut = new LimitedConnectivityCheck(inner, 2);
    const answers = Array.from({ length: 5 }, () => sut.check(tenant, pg, 10_000));
    await flush();
    expect(inner.dials).toBe(2);
    inner.open.shift()!.settle('ok');
    await flush();
    expect(inner.dials).toBe(3);
    while (inner.open.length > 0) {
      inner.open.shift()!.settle('ok');
      await flush();
    }
    expect(await Promise.all(answers)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(inner.dials).toBe(5);
  });

  it('keeps connections apart: a busy one does not hold back another', async () => {
    const inner = new HeldDials();
    const sut = new LimitedConnectivityCheck(inner, 1);
    void sut.check(tenant, pg, 10_000);
    void sut.check(tenant, pg, 10_000);
    void sut.check(tenant, aResolvedConnection('other'), 10_000);
    await flush();
    expect(inner.open.map((d) => d.name)).toEqual(['pg-main', 'other']);
  });

  it('answers unavailable without dialling when no slot frees within the budget, and gives a late slot only the time left', async () => {
    const inner = new HeldDials();
    const sut = new LimitedConnectivityCheck(inner, 1);
    void sut.check(tenant, pg, 10_000);
    const second = sut.check(tenant, pg, 10_000);
    const third = sut.check(tenant, pg, 10_000);
    await flush();
    jest.advanceTimersByTime(4_000);
    inner.open.shift()!.settle('ok');
    await flush();
    expect(inner.open.map((d) => d.timeoutMs)).toEqual([6_000]); // the first waiter got the slot, with 6 s left
    jest.advanceTimersByTime(6_000);
    expect(await third).toBe('unavailable');
    inner.open.shift()!.settle('unavailable');
    expect(await second).toBe('unavailable');
    expect(inner.dials).toBe(2);
  });
});
