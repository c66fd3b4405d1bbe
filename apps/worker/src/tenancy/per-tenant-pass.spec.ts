import { perActiveTenant } from './per-tenant-pass';
import { TenantScope } from './tenant-scope';

describe(perActiveTenant.name, () => {
  const quiet = { warn: () => undefined };

  it('runs the pass once per active tenant, each within its scope, and one tenant\'s failure does not stop the others', async () => {
    const scope = new TenantScope();
    const seen: (string | undefined)[] = [];
    const pass = {
      runOnce: () => {
        const tenant = scope.current();
        seen.push(tenant);
        return tenant === 'b' ? Promise.reject(new Error('b is down')) : Promise.resolve(2);
      },
    };
    const warnings: string[] = [];
    const each = perActiveTenant(pass, 'reaper', () => Promise.resolve([{ id: 'a', name: 'a', status: 'active' }, { id: 'b', name: 'b', status: 'active' }, { id: 'c', name: 'c', status: 'active' }]), scope, { warn: (m) => warnings.push(m) });
    expect(await each.runOnce()).toBe(4);
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(warnings).toEqual(['reaper: tenant b failed (Error); next pass retries']);
  });

  it('skips the round when the tenant-manager cannot list the tenants', async () => {
    const scope = new TenantScope();
    let runs = 0;
    const each = perActiveTenant({ runOnce: () => Promise.resolve(++runs) }, 'repairer', () => Promise.reject(new Error('down')), scope, quiet);
    expect(await each.runOnce()).toBe(0);
    expect(runs).toBe(0);
  });
});
