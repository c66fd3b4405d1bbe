import { withConnectionSecrets, type ConnectionDescriptor } from '@fetcher/engine';
import { connectorAttributes, connectorSecrets } from './attributes';

const BASE: ConnectionDescriptor = { configName: 'crm', type: 'postgresql', host: 'db', port: 5432, databaseName: 'crm', userName: 'u' };

describe(connectorAttributes.name, () => {
  it('keeps only the non-secret options, so a password left in the untyped bag is never used', () => {
    const descriptor = { ...BASE, hostAttributes: { metadata: { serviceName: 'X' }, schemaScope: ['a'], internal: true, password: 'pw', ssl: { key: 'K' } } };
    expect(connectorAttributes(descriptor)).toEqual({ metadata: { serviceName: 'X' }, schemaScope: ['a'], internal: true });
    expect(connectorSecrets(descriptor)).toEqual({});
  });

  it('is empty without host attributes', () => {
    expect(connectorAttributes(BASE)).toEqual({});
  });
});

describe(connectorSecrets.name, () => {
  it('reads the typed secrets the host attached', () => {
    const descriptor = withConnectionSecrets(BASE, { password: 'pw', ssl: { ca: 'CA' } });
    expect(connectorSecrets(descriptor).password).toBe('pw');
    expect(connectorSecrets(descriptor).ssl?.ca).toBe('CA');
  });
});
