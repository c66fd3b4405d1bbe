import { resolvedConnection, resolvedInternal } from './resolved-connections';

const descriptor = { configName: 'db', type: 'POSTGRESQL', host: 'h', port: 5432, databaseName: 'd', userName: 'u' };

describe('resolved connections', () => {
  it('keeps secrets in the typed field only, and lists the ones worth scrubbing', () => {
    const resolved = resolvedConnection(descriptor, { password: 'p4ssword', ssl: { key: 'KEY-PEM', ca: undefined, cert: 'abc' } }, false);
    expect(resolved.internal).toBe(false);
    expect(resolved.descriptor.secrets).toEqual({ password: 'p4ssword', ssl: { key: 'KEY-PEM', cert: 'abc' } });
    expect(JSON.stringify(resolved.descriptor)).not.toMatch(/p4ssword|KEY-PEM/);
    expect(resolved.secretValues).toEqual(['p4ssword', 'KEY-PEM']);
  });

  it('keeps an empty password (a server without one), and no secrets at all when none is given', () => {
    expect(resolvedConnection(descriptor, { password: '' }, false).descriptor.secrets).toEqual({ password: '' });
    expect(resolvedConnection(descriptor, {}, false).descriptor.secrets).toBeUndefined();
  });

  it('marks an operator datasource internal, with its metadata and TLS mode', () => {
    const resolved = resolvedInternal({ ...descriptor, sslMode: 'require', password: 'ops-secret', metadata: { team: 'ops' } });
    expect(resolved).toMatchObject({ internal: true, secretValues: ['ops-secret'], descriptor: { configName: 'db', sslMode: 'require', hostAttributes: { internal: true, metadata: { team: 'ops' } } } });
    expect(resolved.descriptor.secrets?.password).toBe('ops-secret');
  });
});
