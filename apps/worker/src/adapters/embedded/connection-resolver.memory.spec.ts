import { randomBytes } from 'node:crypto';
import type { StoredConnection } from '@fetcher/contracts';
import { KeyRing } from '@fetcher/platform';
import { MemoryConnectionResolver } from './connection-resolver.memory';

const ring = KeyRing.create({ current: { version: '1', key: randomBytes(32) } });

function aConnection(n: number): StoredConnection {
  const { ciphertext, keyVersion } = ring.encryptCredential(`secret-${n}`);
  return {
    id: `0193a1b2-0000-7000-8000-00000000000${n}`,
    productName: 'demo',
    configName: `db${n}`,
    type: 'POSTGRESQL',
    host: '127.0.0.1',
    port: 5432,
    databaseName: 'postgres',
    userName: 'postgres',
    passwordEncrypted: ciphertext,
    keyVersion,
    createdAt: new Date(Date.UTC(2026, 0, n)),
    updatedAt: new Date(Date.UTC(2026, 0, n)),
  };
}

describe(MemoryConnectionResolver.name, () => {
  const live = (...connections: StoredConnection[]) => ({ live: () => connections });

  it('resolves live stored connections with decrypted secrets, and skips unknown names', async () => {
    const resolved = await new MemoryConnectionResolver(live(aConnection(1)), ring).resolve(['db1', 'unknown']);
    expect(resolved).toHaveLength(1);
    expect(resolved[0]?.descriptor).toMatchObject({ configName: 'db1', host: '127.0.0.1', port: 5432 });
    expect(resolved[0]?.descriptor.secrets?.password).toBe('secret-1');
    expect(JSON.stringify(resolved[0]?.descriptor)).not.toContain('secret-1');
    expect(resolved[0]?.secretValues).toEqual(['secret-1']);
  });

  it('resolves an internal datasource before a stored connection of the same name', async () => {
    const internal = { configName: 'db1', type: 'POSTGRESQL', host: 'db.internal', port: 5433, databaseName: 'ops', userName: 'ops', password: 'ops-secret', metadata: { team: 'ops' } };
    const [resolved, ...rest] = await new MemoryConnectionResolver(live(aConnection(1)), ring, [internal]).resolve(['db1']);
    expect(rest).toEqual([]);
    expect(resolved).toMatchObject({ internal: true, secretValues: ['ops-secret'], descriptor: { configName: 'db1', host: 'db.internal', port: 5433, hostAttributes: { internal: true, metadata: { team: 'ops' } } } });
    expect(resolved?.descriptor.secrets?.password).toBe('ops-secret');
  });
});
