import { randomBytes, randomUUID } from 'node:crypto';
import type { StoredConnection } from '@fetcher/contracts';
import { KeyRing } from '@fetcher/platform';
import type { InternalDatasource } from '../config/worker.config';
import type { ConnectionResolver, ResolvedConnection } from '../ports/connection-resolver.port';

/** What the resolver under test is built from: the key ring and the operator's internal datasources. */
export interface ConnectionResolverSetup {
  readonly ring: KeyRing;
  readonly internal: readonly InternalDatasource[];
}

/** A resolver under test, and a way to store a connection as the Manager does (`deleted`: soft-deleted). */
export interface ConnectionResolverUnderTest {
  readonly resolver: ConnectionResolver;
  store(connection: StoredConnection, options?: { readonly deleted?: boolean }): Promise<void>;
}

const previous = randomBytes(32);
const current = randomBytes(32);
const ring = KeyRing.create({ current: { version: '2', key: current }, previous: [{ version: '1', key: previous }] });
/** A record written while version 1 was the current key. */
const oldRing = KeyRing.create({ current: { version: '1', key: previous } });

const byName = (resolved: readonly ResolvedConnection[]) => [...resolved].sort((a, b) => a.descriptor.configName.localeCompare(b.descriptor.configName));

/**
 * What every Worker ConnectionResolver must do, run against the MongoDB adapter and the embedded one
 * alike: internal datasources first, then live stored connections with their secrets decrypted under
 * the record's key version; unknown and deleted names left out. `make` may share one store between
 * tests: every config name here is unique to its test.
 */
export function connectionResolverContract(make: (setup: ConnectionResolverSetup) => ConnectionResolverUnderTest | Promise<ConnectionResolverUnderTest>): void {
  const suffix = randomUUID().slice(0, 8);
  const internalName = `ops-${suffix}`;
  const shadowedName = `shadowed-${suffix}`;
  const internal: InternalDatasource[] = [
    { configName: internalName, type: 'POSTGRESQL', host: 'db.internal', port: 5433, databaseName: 'ops', userName: 'ops', password: 'ops-secret', sslMode: 'require', ssl: { ca: 'INTERNAL-CA' }, metadata: { team: 'ops' } },
    { configName: shadowedName, type: 'MYSQL', host: 'mysql.internal', port: 3306, databaseName: 'm', userName: 'm', metadata: {} },
  ];
  let sut: ConnectionResolverUnderTest;
  beforeEach(async () => {
    sut = await make({ ring, internal });
  });

  const stored = (configName: string, extra: Partial<StoredConnection> = {}, keys: KeyRing = ring): StoredConnection => {
    const { ciphertext, keyVersion } = keys.encryptCredential(`pw-${configName}`);
    return {
      id: randomUUID(),
      productName: 'reporting',
      configName,
      type: 'POSTGRESQL',
      host: '10.1.2.3',
      port: 5432,
      databaseName: 'sales',
      userName: 'reader',
      passwordEncrypted: ciphertext,
      keyVersion,
      createdAt: new Date('2026-02-01T00:00:00Z'),
      updatedAt: new Date('2026-02-02T00:00:00Z'),
      ...extra,
    };
  };
  const name = (label: string) => `${label}-${suffix}-${randomUUID().slice(0, 8)}`;

  it('resolves a live stored connection with its descriptor, product and decrypted secrets', async () => {
    const configName = name('pg');
    const enc = (text: string) => ring.encryptCredential(text).ciphertext;
    const connection = stored(configName, {
      schema: 'public',
      ssl: { mode: 'verify-full', caEncrypted: enc('CA-PEM'), certEncrypted: enc('CERT-PEM'), keyEncrypted: enc('KEY-PEM') },
      metadata: { region: 'eu', tier: 3 },
    });
    await sut.store(connection);

    const [resolved, ...rest] = await sut.resolver.resolve([configName]);
    expect(rest).toEqual([]);
    expect(resolved).toMatchObject({ internal: false, productName: 'reporting' });
    expect(resolved?.descriptor).toEqual({
      id: connection.id,
      configName,
      type: 'POSTGRESQL',
      host: '10.1.2.3',
      port: 5432,
      databaseName: 'sales',
      userName: 'reader',
      schema: 'public',
      sslMode: 'verify-full',
    });
    // Host attributes ride on the descriptor non-enumerable, like the secrets.
    expect(resolved?.descriptor.hostAttributes).toEqual({ metadata: { region: 'eu', tier: '3' }, internal: false });
    expect(resolved?.descriptor.secrets).toEqual({ password: `pw-${configName}`, ssl: { ca: 'CA-PEM', cert: 'CERT-PEM', key: 'KEY-PEM' } });
    expect([...(resolved?.secretValues ?? [])].sort()).toEqual([`pw-${configName}`, 'CERT-PEM', 'KEY-PEM'].sort());
    // The descriptor never serialises a secret: they ride on it non-enumerable.
    expect(JSON.stringify(resolved?.descriptor)).not.toMatch(new RegExp(`PEM|pw-${configName}`));
  });

  it('decrypts a record under the key version it was written with', async () => {
    const configName = name('old');
    await sut.store(stored(configName, {}, oldRing));
    const [resolved] = await sut.resolver.resolve([configName]);
    expect(resolved?.descriptor.secrets?.password).toBe(`pw-${configName}`);
  });

  it('gives an unassigned connection an empty product, and one without secrets no secrets', async () => {
    const configName = name('bare');
    await sut.store(stored(configName, { productName: '', passwordEncrypted: '' }));
    const [resolved] = await sut.resolver.resolve([configName]);
    expect(resolved).toMatchObject({ productName: '', internal: false, secretValues: [] });
    expect(resolved?.descriptor.secrets).toBeUndefined();
    expect(resolved?.descriptor).not.toHaveProperty('schema');
    expect(resolved?.descriptor).not.toHaveProperty('sslMode');
    expect(resolved?.descriptor.hostAttributes).toEqual({ metadata: {}, internal: false });
  });

  it('uses the plaintext PEM of records from the original service as it is', async () => {
    const configName = name('legacy');
    await sut.store(stored(configName, { ssl: { mode: 'verify-ca', legacyCa: 'LEGACY-CA', legacyCert: 'LEGACY-CERT', legacyKey: 'LEGACY-KEY' } }));
    const [resolved] = await sut.resolver.resolve([configName]);
    expect(resolved?.descriptor.secrets?.ssl).toEqual({ ca: 'LEGACY-CA', cert: 'LEGACY-CERT', key: 'LEGACY-KEY' });
    expect(resolved?.descriptor.sslMode).toBe('verify-ca');
  });

  it('resolves an internal datasource, before a stored connection of the same name', async () => {
    await sut.store(stored(shadowedName));
    const resolved = byName(await sut.resolver.resolve([internalName, shadowedName]));
    expect(resolved.map((r) => [r.descriptor.configName, r.internal, r.descriptor.host])).toEqual([
      [internalName, true, 'db.internal'],
      [shadowedName, true, 'mysql.internal'],
    ]);
    const ops = resolved.find((r) => r.descriptor.configName === internalName);
    expect(ops?.descriptor).toEqual({
      configName: internalName,
      type: 'POSTGRESQL',
      host: 'db.internal',
      port: 5433,
      databaseName: 'ops',
      userName: 'ops',
      sslMode: 'require',
    });
    expect(ops?.descriptor.hostAttributes).toEqual({ metadata: { team: 'ops' }, internal: true });
    expect(ops?.descriptor.secrets).toEqual({ password: 'ops-secret', ssl: { ca: 'INTERNAL-CA' } });
    expect(ops?.secretValues).toEqual(['ops-secret']);
    expect(ops?.productName).toBeUndefined();
  });

  it('leaves out unknown and deleted names, and answers a name asked twice once', async () => {
    const live = name('live');
    const deleted = name('deleted');
    await sut.store(stored(live));
    await sut.store(stored(deleted), { deleted: true });
    const resolved = await sut.resolver.resolve([live, deleted, name('unknown'), live, internalName, internalName]);
    expect(resolved.map((r) => r.descriptor.configName).sort()).toEqual([internalName, live].sort());
    expect(await sut.resolver.resolve([])).toEqual([]);
  });

  it('resolves several stored connections in one call', async () => {
    const names = [name('a'), name('b'), name('c')];
    for (const n of names) await sut.store(stored(n));
    const resolved = byName(await sut.resolver.resolve(names));
    expect(resolved.map((r) => [r.descriptor.configName, r.descriptor.secrets?.password])).toEqual([...names].sort().map((n) => [n, `pw-${n}`]));
  });
}
