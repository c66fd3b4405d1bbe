import { randomBytes } from 'node:crypto';
import { createTenantContext } from '@fetcher/engine';
import { parseKeyRingEnv } from '@fetcher/platform';
import { withFaults } from '@fetcher/platform/testing';
import { EnvInternalDatasources } from '../../adapters/config/internal-datasources.env';
import { MemoryConnectionRepository } from '../../adapters/embedded/connection-repository.memory';
import type { ManagerConfig } from '../../config/manager.config';
import { AppError } from '../../errors/app-error';
import { FakeClock } from '../../testing/fake-clock';
import { ConnectionDirectory } from '../connection-directory';
import type { CreateConnectionInput } from '../dto/create-connection.request';
import { HostLiteralCheck } from '../host-literal-check';
import { CreateConnectionCommand } from './create-connection.command';
import { CreateConnectionHandler } from './create-connection.handler';

describe(CreateConnectionHandler.name, () => {
  const tenant = createTenantContext('default');
  const input = (overrides: Partial<CreateConnectionInput> = {}): CreateConnectionInput => ({
    configName: ' crm ',
    type: 'POSTGRESQL',
    host: ' db.example.com ',
    port: 5432,
    databaseName: 'app',
    userName: 'reader',
    password: 's3cret',
    ...overrides,
  });
  const setup = () => {
    const ring = parseKeyRingEnv({ APP_ENC_KEY: randomBytes(32).toString('base64') });
    if (!ring.ok) throw new Error('key ring');
    const config = { keyRing: ring.ring, hostSafety: { allowlist: [], allowPrivate: true } } as unknown as ManagerConfig;
    const repository = withFaults(MemoryConnectionRepository.inMemory());
    const internals = new EnvInternalDatasources([
      { configName: 'ledger', type: 'POSTGRESQL', host: 'h', port: 5432, databaseName: 'd', userName: 'u', password: '', metadata: {}, sslMode: '', ssl: {} },
    ]);
    const directory = new ConnectionDirectory(internals, repository, config);
    const sut = new CreateConnectionHandler(repository, new FakeClock('2026-03-01T00:00:00Z'), directory, new HostLiteralCheck(config));
    return { sut, repository, ring: ring.ring };
  };

  it('stores a trimmed connection with the password encrypted under the current key', async () => {
    const { sut, repository, ring } = setup();
    const created = await sut.execute(new CreateConnectionCommand(tenant, 'reporter', input({ ssl: { mode: 'require', ca: 'CA', cert: '', key: '' } })));
    expect(created).toMatchObject({ configName: 'crm', host: 'db.example.com', productName: 'reporter', keyVersion: '1', createdAt: new Date('2026-03-01T00:00:00Z') });
    expect(ring.decryptCredential(created.passwordEncrypted, '1')).toBe('s3cret');
    expect(created.ssl).toEqual({ mode: 'require', caEncrypted: expect.any(String) });
    expect(repository.live()).toEqual([created]);
  });

  it('refuses an internal datasource name and a live name with 409/FET-1002', async () => {
    const { sut } = setup();
    await expect(sut.execute(new CreateConnectionCommand(tenant, 'p', input({ configName: 'ledger' })))).rejects.toMatchObject({ code: 'FET-1002' });
    await sut.execute(new CreateConnectionCommand(tenant, 'p', input()));
    await expect(sut.execute(new CreateConnectionCommand(tenant, 'p', input()))).rejects.toMatchObject({ code: 'FET-1002' });
  });

  it('runs host safety on the literal before the domain rules', async () => {
    const { sut, repository } = setup();
    const attempt = sut.execute(new CreateConnectionCommand(tenant, 'p', input({ host: '169.254.169.254', configName: 'x' })));
    await expect(attempt).rejects.toBeInstanceOf(AppError);
    await expect(attempt).rejects.toMatchObject({ code: 'FET-0414' });
    expect(repository.live()).toEqual([]);
  });

  it('lets a storage failure through untouched', async () => {
    const { sut, repository } = setup();
    for (const method of ['insert', 'findLiveById', 'findLiveByName'] as const) repository.faults.failAlways(method, new Error('down'));
    await expect(sut.execute(new CreateConnectionCommand(tenant, 'p', input()))).rejects.toThrow('down');
  });
});
