import { EngineError, ErrorText } from '../index';
import { noConnectorText } from '../errors';
import { aWorldWith, TENANT } from '../testing/engine-fixture';
import { ConnectionTester } from './connection-tester';

describe(ConnectionTester.name, () => {
  it('tests the connection through a freshly built connector and closes it', async () => {
    const world = await aWorldWith(['crm']);
    expect(await world.engine.testConnection(TENANT, 'crm')).toEqual({ success: true, configName: 'crm' });
    expect(world.factory.lastBuilt?.descriptor?.configName).toBe('crm');
    expect(world.template.testCalls).toBe(1);
    expect(world.template.closeCount).toBe(1);
  });

  it('reports a failed test as connect with the fixed text, closing the connector anyway', async () => {
    const world = await aWorldWith(['crm']);
    const driver = new Error('getaddrinfo ENOTFOUND db.internal for user reader password s3cret');
    world.template.behavior.testErr = driver;
    const error = (await world.engine.testConnection(TENANT, 'crm').catch((e: unknown) => e)) as EngineError;
    expect(error).toEqual(new EngineError('connect', ErrorText.connectFailed));
    expect(error.cause).toBe(driver);
    expect(String(error) + JSON.stringify(error)).not.toContain('s3cret');
    expect(world.template.closeCount).toBe(1);
  });

  it('also re-texts a connect EngineError carrying a connector-made message', async () => {
    const world = await aWorldWith(['crm']);
    world.template.behavior.testErr = new EngineError('connect', 'dial tcp postgres://u:pw@h failed');
    await expect(world.engine.testConnection(TENANT, 'crm')).rejects.toEqual(new EngineError('connect', ErrorText.connectFailed));
  });

  it('reports an aborted host signal as canceled', async () => {
    const world = await aWorldWith(['crm']);
    await expect(world.engine.testConnection(TENANT, 'crm', { signal: AbortSignal.abort() })).rejects.toEqual(
      new EngineError('canceled', ErrorText.canceled),
    );
  });

  it('fails with not_found for an unknown connection or an unregistered type, and unavailable when the build fails', async () => {
    const world = await aWorldWith(['crm']);
    await expect(world.engine.testConnection(TENANT, 'nope')).rejects.toEqual(new EngineError('not_found', ErrorText.connectionNotFound));
    await world.engine.createConnection(TENANT, { configName: 'ora', type: 'oracle', host: 'h', port: 1521, databaseName: 'x', userName: 'u' } as never);
    await expect(world.engine.testConnection(TENANT, 'ora')).rejects.toEqual(new EngineError('not_found', noConnectorText('oracle')));
    world.factory.buildErr = new Error('invalid sslmode for postgres://u:pw@h');
    await expect(world.engine.testConnection(TENANT, 'crm')).rejects.toEqual(new EngineError('unavailable', ErrorText.buildFailed));
    world.factory.buildErr = undefined;
    world.factory.nilConnector = true;
    await expect(world.engine.testConnection(TENANT, 'crm')).rejects.toEqual(new EngineError('unavailable', ErrorText.buildFailed));
  });

  it('treats a registry that throws, or a factory without build, as the documented failures', async () => {
    const world = await aWorldWith(['crm']);
    world.registry.register('memory', {} as never);
    await expect(world.engine.testConnection(TENANT, 'crm')).rejects.toEqual(new EngineError('not_found', noConnectorText('memory')));
    world.registry.connector = () => {
      throw new Error('registry bug');
    };
    await expect(world.engine.testConnection(TENANT, 'crm')).rejects.toEqual(new EngineError('unavailable', ErrorText.buildFailed));
  });

  it('refuses a blank config name', async () => {
    const world = await aWorldWith(['crm']);
    await expect(world.engine.testConnection(TENANT, '  ')).rejects.toEqual(new EngineError('validation', ErrorText.invalidConfigName));
  });
});
