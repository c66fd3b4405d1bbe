import { ConfigError } from '../config/config-error';
import { resolveTenantManagerOptions, TENANT_MANAGER_DEFAULTS } from './tenant-manager-options';

describe(resolveTenantManagerOptions.name, () => {
  const base = { url: 'https://tm.example.com', apiKey: 'k' };

  it('applies the defaults', () => {
    expect(resolveTenantManagerOptions(base)).toEqual({
      baseUrl: 'https://tm.example.com', apiKey: 'k', name: 'tenant-manager', ...TENANT_MANAGER_DEFAULTS,
    });
  });

  it('keeps a base path and drops trailing slashes', () => {
    expect(resolveTenantManagerOptions({ ...base, url: 'https://tm.example.com/api//' }).baseUrl).toBe('https://tm.example.com/api');
  });

  it('refuses http unless insecure HTTP is allowed', () => {
    expect(() => resolveTenantManagerOptions({ ...base, url: 'http://tm:8080' })).toThrow(ConfigError);
    expect(resolveTenantManagerOptions({ ...base, url: 'http://tm:8080', allowInsecureHttp: true }).baseUrl).toBe('http://tm:8080');
  });

  it.each([
    ['not a URL', { url: 'tm:8080/x y' }],
    ['another scheme', { url: 'ftp://tm' }],
    ['credentials in the URL', { url: 'https://user:secret@tm' }],
    ['a query', { url: 'https://tm?x=1' }],
    ['no API key', { apiKey: '' }],
    ['a zero timeout', { timeoutMs: 0 }],
    ['a negative cache TTL', { cacheTtlMs: -1 }],
  ])('refuses %s, naming the option but not the value', (_, override) => {
    let error: unknown;
    try {
      resolveTenantManagerOptions({ ...base, ...override });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/tenant-manager (url|apiKey|timeoutMs|cacheTtlMs):/);
    expect((error as ConfigError).message).not.toContain('secret');
  });

  it('falls back to 5 failures and 30 s when the threshold is 0 or less', () => {
    expect(resolveTenantManagerOptions({ ...base, breakerThreshold: 0, breakerTimeoutMs: 5_000 })).toMatchObject({ breakerThreshold: 5, breakerTimeoutMs: 30_000 });
    expect(resolveTenantManagerOptions({ ...base, breakerThreshold: 3, breakerTimeoutMs: 5_000 })).toMatchObject({ breakerThreshold: 3, breakerTimeoutMs: 5_000 });
    expect(resolveTenantManagerOptions({ ...base, breakerThreshold: 3, breakerTimeoutMs: 0 })).toMatchObject({ breakerThreshold: 3, breakerTimeoutMs: 30_000 });
  });
});
