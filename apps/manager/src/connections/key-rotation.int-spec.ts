import { randomBytes, randomUUID } from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { type MongoTestTarget, withMongo } from '@fetcher/mongo-test-server';
import { mongo } from 'mongoose';
import { ManagerHarness } from '../testing/manager-harness';
import { createMariaDatabase } from '../testing/sql-fixtures';

const BASE = '/v1/management/connections';

describe('credential key rotation', () => {
  const key1 = randomBytes(32).toString('base64');
  const key2 = randomBytes(32).toString('base64');
  let mongoServer: MongoTestTarget;
  let maria: Awaited<ReturnType<typeof createMariaDatabase>>;
  const started: ManagerHarness[] = [];
  let dbName: string;

  beforeAll(async () => {
    mongoServer = await withMongo();
    maria = await createMariaDatabase();
    dbName = `rot_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  });
  afterAll(async () => {
    await Promise.all(started.map((m) => m.close()));
    await mongoServer?.close();
    await maria?.drop();
  });

  /** A Manager on the shared database with the given key ring. */
  async function manager(ring: Record<string, string>): Promise<ManagerHarness> {
    const m = await ManagerHarness.start(mongoServer.uri, { MONGO_NAME: dbName, ...ring });
    started.push(m);
    return m;
  }

  it('reads records written under version 1 after rotating to version 2, and re-encrypts them on PATCH', async () => {
    const v1 = await manager({ APP_ENC_KEY: key1 });
    const created = await v1.create({
      configName: `rot-${randomUUID().slice(0, 8)}`,
      type: 'MYSQL',
      host: '127.0.0.1',
      port: 3306,
      databaseName: maria.database,
      userName: maria.user,
      password: maria.password,
      ssl: { mode: 'false', ca: 'CA-PEM', cert: 'CERT-PEM', key: 'KEY-PEM' },
    });
    const id = created.id as string;
    const before = await v1.collection('connection').findOne({ config_name: created.configName });
    expect(before).toMatchObject({ encryption_key_version: '1', ssl: { ca_encrypted: expect.any(String), cert_encrypted: expect.any(String), key_encrypted: expect.any(String) } });

    const v2 = await manager({ APP_ENC_KEY: key2, APP_ENC_KEY_VERSION: '2', APP_ENC_KEY_PREVIOUS: `1:${key1}` });
    // The password under version 1 still opens the database.
    expect((await v2.request('POST', `${BASE}/${id}/test`)).json()).toMatchObject({ status: 'success' });

    expect((await v2.request('PATCH', `${BASE}/${id}`, { body: { metadata: { rotated: 'yes' } } })).status).toBe(200);
    const after = await v2.collection('connection').findOne({ config_name: created.configName });
    expect(after?.encryption_key_version).toBe('2');
    expect(after?.password_encrypted).not.toBe(before?.password_encrypted);
    const ring = v2.config.keyRing;
    expect(ring.decryptCredential(after?.password_encrypted as string, '2')).toBe(maria.password);
    const ssl = after?.ssl as Record<string, string>;
    expect([ssl.ca_encrypted, ssl.cert_encrypted, ssl.key_encrypted].map((c) => ring.decryptCredential(c, '2'))).toEqual(['CA-PEM', 'CERT-PEM', 'KEY-PEM']);

    // A Manager that knows only the new key can use the record now.
    const onlyV2 = await manager({ APP_ENC_KEY: key2, APP_ENC_KEY_VERSION: '2' });
    expect((await onlyV2.request('POST', `${BASE}/${id}/test`)).json()).toMatchObject({ status: 'success' });
  });

  it('cannot use a record whose key left the ring: the test fails like a refused dial', async () => {
    const v1 = await manager({ APP_ENC_KEY: key1 });
    const created = await v1.create({ configName: `old-${randomUUID().slice(0, 8)}`, type: 'MYSQL', host: '127.0.0.1', port: 3306, databaseName: maria.database, userName: maria.user, password: maria.password });
    const onlyV2 = await manager({ APP_ENC_KEY: key2, APP_ENC_KEY_VERSION: '2' });
    const res = await onlyV2.request('POST', `${BASE}/${created.id as string}/test`);
    expect(res.status).toBe(500);
    expect(res.json()).toMatchObject({ code: 500, title: 'Database Connection Error' });
  });

  it('reads plaintext SSL material left by the original service and encrypts it on the next PATCH', async () => {
    const m = await manager({ APP_ENC_KEY: key1 });
    const id = randomUUID();
    await m.collection('connection').insertOne({
      _id: new mongo.Binary(Buffer.from(id.replace(/-/g, ''), 'hex'), 0),
      product_name: 'reporter',
      config_name: `legacy-${id.slice(0, 8)}`,
      type: 'MYSQL',
      host: '127.0.0.1',
      port: 3306,
      database_name: maria.database,
      username: maria.user,
      password_encrypted: m.config.keyRing.encryptCredential(maria.password).ciphertext,
      encryption_key_version: '1',
      ssl: { mode: 'false', ca: 'LEGACY-CA' },
      created_at: new Date(),
      updated_at: new Date(),
      deleted_at: null,
    } as never);
    const read = await m.request('GET', `${BASE}/${id}`);
    expect(read.json()).toMatchObject({ ssl: { mode: 'false' } });
    expect(read.text).not.toContain('LEGACY-CA');
    expect((await m.request('POST', `${BASE}/${id}/test`)).json()).toMatchObject({ status: 'success' });

    expect((await m.request('PATCH', `${BASE}/${id}`, { body: { port: 3306 } })).status).toBe(200);
    const doc = await m.collection('connection').findOne({ config_name: `legacy-${id.slice(0, 8)}` });
    expect(doc?.ssl).toEqual({ mode: 'false', ca_encrypted: expect.any(String) });
    expect(m.config.keyRing.decryptCredential((doc?.ssl as Record<string, string>).ca_encrypted, '1')).toBe('LEGACY-CA');
  });
});
