import { inspect } from 'node:util';
import { ConnectionInput, EngineError, ErrorText, type CredentialProtector, type TenantContext } from '../index';
import { MemoryConnectionStore } from '../memory';
import { anInput, aWorld, OTHER_TENANT, TENANT } from '../testing/engine-fixture';
import { ConnectionOperations } from './connection-operations';

class RecordingProtector implements CredentialProtector {
  readonly protected: string[] = [];
  failWith: Error | undefined;
  keyVersion = 4;
  async protect(_tenant: TenantContext, plaintext: string): Promise<{ ciphertext: string; keyVersion: number }> {
    if (this.failWith) throw this.failWith;
    this.protected.push(plaintext);
    return { ciphertext: `enc(${plaintext.length})`, keyVersion: this.keyVersion };
  }
  async reveal(): Promise<string> {
    return '';
  }
}

function encryptedWorld(checker?: (name: string) => Promise<boolean>) {
  const protector = new RecordingProtector();
  const world = aWorld({
    encryptedPersistence: true,
    credentialProtector: protector,
    ...(checker ? { activeExecutionChecker: { hasActiveExecutions: (_t: TenantContext, name: string) => checker(name) } } : {}),
  });
  return { ...world, protector };
}

describe(ConnectionOperations.name, () => {
  describe('create', () => {
    it('stores a secret-free descriptor with a new id, and the protected password next to it', async () => {
      const { engine, store, protector } = encryptedWorld();
      const created = await engine.createConnection(TENANT, anInput('crm'));
      expect(created).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        configName: 'crm',
        type: 'memory',
        host: 'db.internal',
        port: 5432,
        databaseName: 'crm',
        userName: 'reader',
        keyVersion: 4,
      });
      expect(protector.protected).toEqual(['s3cret']);
      expect(store.protectedCredential(TENANT, 'crm')).toEqual({ ciphertext: 'enc(6)', keyVersion: 4 });
      expect(JSON.stringify(await engine.getConnection(TENANT, 'crm'))).not.toContain('s3cret');
    });

    it('refuses a duplicate with conflict before calling the protector', async () => {
      const { engine, protector } = encryptedWorld();
      await engine.createConnection(TENANT, anInput('crm'));
      await expect(engine.createConnection(TENANT, anInput('crm'))).rejects.toEqual(new EngineError('conflict', ErrorText.connectionExists));
      expect(protector.protected).toHaveLength(1);
    });

    it('leaves the store untouched when protection fails, and hides the protector error', async () => {
      const { engine, store, protector } = encryptedWorld();
      protector.failWith = new Error('kms key arn:aws:kms:secret denied');
      const error = (await engine.createConnection(TENANT, anInput('crm')).catch((e: unknown) => e)) as EngineError;
      expect(error).toEqual(new EngineError('unavailable', ErrorText.protectFailed));
      expect(String(error)).not.toContain('kms');
      expect(await store.list(TENANT)).toEqual([]);
    });

    it('protects nothing without encrypted persistence or without a password', async () => {
      const { engine, store } = aWorld();
      await engine.createConnection(TENANT, anInput('plain'));
      expect(store.protectedCredential(TENANT, 'plain')).toBeUndefined();
      const encrypted = encryptedWorld();
      const created = await encrypted.engine.createConnection(TENANT, anInput('nopass', { password: undefined }));
      expect(encrypted.protector.protected).toEqual([]);
      expect(created.keyVersion).toBeUndefined();
    });

    it('accepts plain input fields as well as a ConnectionInput', async () => {
      const { engine } = aWorld();
      const created = await engine.createConnection(TENANT, { configName: 'raw', type: 'memory', host: 'h', port: 1, databaseName: 'd', userName: 'u' } as never);
      expect(created.configName).toBe('raw');
    });

    it('accepts a ConnectionInput-like object from another copy of the package, keeping its hidden password', async () => {
      const { engine, protector } = encryptedWorld();
      const foreign = { configName: 'copy', type: 'memory', host: 'h', port: 1, databaseName: 'd', userName: 'u', password: () => 'pw-from-copy' };
      await engine.createConnection(TENANT, foreign as never);
      expect(protector.protected).toEqual(['pw-from-copy']);
    });

    it.each<[string, unknown]>([
      ['undefined', undefined],
      ['a string', 'postgres://user:pass@host/db'],
      ['a blank configName', { ...anInput().toJSON(), configName: ' ', password: undefined }],
      ['a port out of range', { ...anInput().toJSON(), port: 70000, password: undefined }],
      ['a port that is text', { ...anInput().toJSON(), port: '5432', password: undefined }],
      ['a numeric password', { ...anInput().toJSON(), password: 1234 }],
      ['a missing type', new ConnectionInput({ ...anInput().toJSON(), type: undefined, password: undefined } as never)],
    ])('refuses %s as input with "connection input is invalid"', async (_name, input) => {
      const { engine } = aWorld();
      await expect(engine.createConnection(TENANT, input as never)).rejects.toEqual(new EngineError('validation', ErrorText.invalidInput));
    });

    it('keeps host attributes on the descriptor but out of every serialisation', async () => {
      const { engine, store } = aWorld();
      const hostAttributes = { decryptedPassword: 'hunter2', schemaScope: ['public'] };
      const created = await engine.createConnection(TENANT, anInput('crm', { hostAttributes }));
      expect(created.hostAttributes).toBe(hostAttributes);
      expect(Object.keys(created)).not.toContain('hostAttributes');
      expect(JSON.stringify(created)).not.toContain('hunter2');
      expect(inspect({ ...created })).not.toContain('hunter2');
      expect((await store.findConnection(TENANT, 'crm'))?.hostAttributes).toBe(hostAttributes);
    });
  });

  describe('reads', () => {
    it('finds by name and by id, lists in name order and pages through the store unchanged', async () => {
      const { engine } = aWorld();
      const b = await engine.createConnection(TENANT, anInput('b'));
      const a = await engine.createConnection(TENANT, anInput('a'));
      expect(await engine.getConnection(TENANT, 'b')).toEqual(b);
      expect(await engine.getConnectionById(TENANT, a.id!)).toEqual(a);
      expect(await engine.listConnections(TENANT)).toEqual([a, b]);
      expect(await engine.listConnectionsPaged(TENANT, { filter: { host: 'ignored-by-memory' } })).toEqual({ items: [a, b], total: 2 });
    });

    it("answers another tenant's connection exactly like a missing one", async () => {
      const { engine } = aWorld();
      const created = await engine.createConnection(TENANT, anInput('crm'));
      const notFound = new EngineError('not_found', ErrorText.connectionNotFound);
      await expect(engine.getConnection(OTHER_TENANT, 'crm')).rejects.toEqual(notFound);
      await expect(engine.getConnection(TENANT, 'missing')).rejects.toEqual(notFound);
      await expect(engine.getConnectionById(OTHER_TENANT, created.id!)).rejects.toEqual(notFound);
      expect(await engine.listConnections(OTHER_TENANT)).toEqual([]);
    });

    it.each([
      ['getConnection', (e: ReturnType<typeof aWorld>['engine']) => e.getConnection(TENANT, ''), ErrorText.invalidConfigName],
      ['getConnection', (e: ReturnType<typeof aWorld>['engine']) => e.getConnection(TENANT, Number('42') as never), ErrorText.invalidConfigName],
      ['getConnectionById', (e: ReturnType<typeof aWorld>['engine']) => e.getConnectionById(TENANT, null as never), ErrorText.invalidConnectionId],
      ['listConnectionsPaged', (e: ReturnType<typeof aWorld>['engine']) => e.listConnectionsPaged(TENANT, 'page=2' as never), ErrorText.invalidListQuery],
      ['listConnectionsPaged', (e: ReturnType<typeof aWorld>['engine']) => e.listConnectionsPaged(TENANT, { filter: [1] } as never), ErrorText.invalidListQuery],
    ])('%s refuses bad arguments with a fixed validation text', async (_name, call, message) => {
      await expect(call(aWorld().engine)).rejects.toEqual(new EngineError('validation', message));
    });

    it('reports a store that throws a raw error as a store failure without its message', async () => {
      const store = new MemoryConnectionStore();
      store.findConnection = async () => {
        throw new Error('MongoServerError: auth failed for mongodb://root:pw@mongo');
      };
      const { engine } = aWorld({ connectionStore: store });
      const error = (await engine.getConnection(TENANT, 'crm').catch((e: unknown) => e)) as EngineError;
      expect(error).toEqual(new EngineError('unavailable', ErrorText.storeFailed));
      expect(JSON.stringify(error) + String(error)).not.toContain('pw@');
    });

    it('reports a store that returns something other than a descriptor as a store failure', async () => {
      const store = new MemoryConnectionStore();
      store.list = async () => [{ configName: 'x' } as never];
      const { engine } = aWorld({ connectionStore: store });
      await expect(engine.listConnections(TENANT)).rejects.toEqual(new EngineError('unavailable', ErrorText.storeFailed));
    });
  });

  describe('update and delete', () => {
    it('applies a patch, keeping the stored secret and key version when the patch has no password', async () => {
      const { engine, store } = encryptedWorld();
      await engine.createConnection(TENANT, anInput('crm'));
      const updated = await engine.updateConnection(TENANT, 'crm', { host: 'replica.internal', port: 6543 });
      expect(updated).toMatchObject({ configName: 'crm', host: 'replica.internal', port: 6543, keyVersion: 4 });
      expect(store.protectedCredential(TENANT, 'crm')).toEqual({ ciphertext: 'enc(6)', keyVersion: 4 });
    });

    it('re-protects a new password with the current key version', async () => {
      const { engine, store, protector } = encryptedWorld();
      await engine.createConnection(TENANT, anInput('crm'));
      protector.keyVersion = 5;
      const updated = await engine.updateConnection(TENANT, 'crm', { password: 'rotated-pass' });
      expect(updated.keyVersion).toBe(5);
      expect(store.protectedCredential(TENANT, 'crm')).toEqual({ ciphertext: 'enc(12)', keyVersion: 5 });
    });

    it.each([{ configName: 'renamed' }, { port: -1 }, { password: 5 }, { unknown: true }, null, 'host=x'])('refuses the patch %p', async (patch) => {
      const { engine, protector } = encryptedWorld();
      await engine.createConnection(TENANT, anInput('crm'));
      await expect(engine.updateConnection(TENANT, 'crm', patch as never)).rejects.toEqual(new EngineError('validation', ErrorText.invalidPatch));
      expect(protector.protected).toHaveLength(1);
    });

    it('gates update and delete on active executions', async () => {
      let active = true;
      const { engine } = encryptedWorld(async () => active);
      await engine.createConnection(TENANT, anInput('crm'));
      const busy = new EngineError('conflict', ErrorText.activeExecutions);
      await expect(engine.updateConnection(TENANT, 'crm', { host: 'x' })).rejects.toEqual(busy);
      await expect(engine.deleteConnection(TENANT, 'crm')).rejects.toEqual(busy);
      active = false;
      await engine.deleteConnection(TENANT, 'crm');
      await expect(engine.getConnection(TENANT, 'crm')).rejects.toEqual(new EngineError('not_found', ErrorText.connectionNotFound));
    });

    it('drops the checker error behind a fixed text in the gate, but rethrows it unchanged from checkActiveExecutions', async () => {
      const raw = new Error('redis://:secret@cache unreachable');
      const { engine } = encryptedWorld(async () => {
        throw raw;
      });
      await engine.createConnection(TENANT, anInput('crm'));
      await expect(engine.deleteConnection(TENANT, 'crm')).rejects.toEqual(new EngineError('unavailable', ErrorText.activeCheckFailed));
      await expect(engine.checkActiveExecutions(TENANT, 'crm')).rejects.toBe(raw);
    });

    it('answers checkActiveExecutions with the checker, or false without one', async () => {
      expect(await aWorld().engine.checkActiveExecutions(TENANT, 'crm')).toBe(false);
      expect(await encryptedWorld(async (name) => name === 'crm').engine.checkActiveExecutions(TENANT, 'crm')).toBe(true);
    });

    it('updates and deletes by id without the gate', async () => {
      const { engine } = encryptedWorld(async () => true);
      const created = await engine.createConnection(TENANT, anInput('crm'));
      expect(await engine.updateConnectionById(TENANT, created.id!, { databaseName: 'crm2' })).toMatchObject({ id: created.id, databaseName: 'crm2' });
      await engine.deleteConnectionById(TENANT, created.id!);
      await expect(engine.getConnectionById(TENANT, created.id!)).rejects.toEqual(new EngineError('not_found', ErrorText.connectionNotFound));
    });

    it("cannot update or delete another tenant's connection", async () => {
      const { engine } = aWorld();
      const created = await engine.createConnection(TENANT, anInput('crm'));
      const notFound = new EngineError('not_found', ErrorText.connectionNotFound);
      await expect(engine.updateConnection(OTHER_TENANT, 'crm', { host: 'x' })).rejects.toEqual(notFound);
      await expect(engine.deleteConnection(OTHER_TENANT, 'crm')).rejects.toEqual(notFound);
      await expect(engine.updateConnectionById(OTHER_TENANT, created.id!, { host: 'x' })).rejects.toEqual(notFound);
      await expect(engine.deleteConnectionById(OTHER_TENANT, created.id!)).rejects.toEqual(notFound);
      expect(await engine.getConnection(TENANT, 'crm')).toEqual(created);
    });
  });

  it('authorizes access for a valid tenant only', async () => {
    const { engine } = aWorld();
    await expect(engine.authorizeConnectionAccess(TENANT)).resolves.toBeUndefined();
    await expect(engine.authorizeConnectionAccess({ tenantId: '-x' })).rejects.toEqual(new EngineError('validation', ErrorText.tenantRequired));
  });
});
