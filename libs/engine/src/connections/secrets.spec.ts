import { inspect } from 'node:util';
import { withConnectionSecrets, type ConnectionDescriptor, type ConnectionStore } from '../index';
import { aWorldWith, TENANT } from '../testing/engine-fixture';
import { copyDescriptor } from './descriptor';

const BASE: ConnectionDescriptor = { configName: 'crm', type: 'memory', host: 'db', port: 5432, databaseName: 'crm', userName: 'reader' };
const SECRETS = { password: 'pw-0xC0FFEE', ssl: { ca: 'CA-PEM-TEXT', cert: 'CERT-PEM-TEXT', key: 'KEY-PEM-TEXT' } };
const SECRET_TEXTS = ['pw-0xC0FFEE', 'CA-PEM-TEXT', 'CERT-PEM-TEXT', 'KEY-PEM-TEXT'];

function renderings(value: unknown): string {
  return [JSON.stringify(value), inspect(value), inspect(value, { depth: 10 }), String(JSON.stringify({ value }))].join(' ');
}

describe('connection secrets on a descriptor', () => {
  it('are readable by connectors, typed, but hidden from spreads, JSON and inspect', () => {
    const descriptor = withConnectionSecrets(BASE, SECRETS);
    expect(descriptor.secrets?.password).toBe('pw-0xC0FFEE');
    expect(descriptor.secrets?.ssl).toEqual({ ca: 'CA-PEM-TEXT', cert: 'CERT-PEM-TEXT', key: 'KEY-PEM-TEXT' });
    expect(Object.keys(descriptor)).not.toContain('secrets');
    expect({ ...descriptor }).not.toHaveProperty('secrets');
    for (const shown of [descriptor, descriptor.secrets, descriptor.secrets?.ssl, { nested: descriptor.secrets }]) {
      const text = renderings(shown);
      for (const secret of SECRET_TEXTS) expect(text).not.toContain(secret);
    }
    expect(JSON.stringify(descriptor.secrets)).toBe('"[REDACTED]"');
    expect(inspect(descriptor.secrets)).toBe('[REDACTED]');
    expect(Object.isFrozen(descriptor.secrets)).toBe(true);
  });

  it('leave the original descriptor untouched and can be removed again', () => {
    const withSecrets = withConnectionSecrets({ ...BASE, hostAttributes: { schemaScope: ['public'] } }, SECRETS);
    expect(BASE).not.toHaveProperty('secrets');
    expect(withSecrets.hostAttributes).toEqual({ schemaScope: ['public'] });
    expect(Object.keys(withSecrets)).not.toContain('hostAttributes');
    const without = withConnectionSecrets(withSecrets, undefined);
    expect(without.secrets).toBeUndefined();
    expect(without.hostAttributes).toEqual({ schemaScope: ['public'] });
  });

  it.each([[{ password: 5 }], [{ ssl: 'pem' }], [{ ssl: { key: 1 } }], ['pw']])('are refused when malformed: %p', (secrets) => {
    expect(() => withConnectionSecrets(BASE, secrets as never)).toThrow(TypeError);
    expect(copyDescriptor({ ...BASE, secrets })).toBeUndefined();
  });

  it('survive the checked copy the engine makes of a store result, even when the store gave them enumerable', () => {
    const copy = copyDescriptor({ ...BASE, secrets: SECRETS });
    expect(copy?.secrets?.password).toBe('pw-0xC0FFEE');
    expect(copy?.secrets?.ssl?.key).toBe('KEY-PEM-TEXT');
    expect(Object.keys(copy ?? {})).not.toContain('secrets');
  });

  it('reach the connector the engine builds from a store that supplies them', async () => {
    const world = await aWorldWith(['crm']);
    const found = world.store.findConnection.bind(world.store);
    world.store.findConnection = async (tenant, name) => {
      const descriptor = await found(tenant, name);
      return descriptor && withConnectionSecrets(descriptor, SECRETS);
    };
    await world.engine.testConnection(TENANT, 'crm');
    expect(world.factory.lastBuilt?.descriptor?.secrets?.password).toBe('pw-0xC0FFEE');
  });

  it('never reach the connection store on create or update', async () => {
    const world = await aWorldWith(['crm']);
    const seen: ConnectionDescriptor[] = [];
    const store = world.store as unknown as ConnectionStore;
    const update = store.update.bind(store);
    const found = store.findConnection.bind(store);
    store.findConnection = async (tenant, name) => {
      const descriptor = await found(tenant, name);
      return descriptor && withConnectionSecrets(descriptor, SECRETS);
    };
    store.update = async (tenant, descriptor, credential) => {
      seen.push(descriptor);
      return update(tenant, descriptor, credential);
    };
    await world.engine.updateConnection(TENANT, 'crm', { port: 6543 });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.secrets).toBeUndefined();
  });
});
