import { randomUUID } from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { type MongoTestTarget, withMongo } from '@fetcher/mongo-test-server';
import { aPostgresConnection, ManagerHarness } from '../testing/manager-harness';
import { createMariaDatabase } from '../testing/sql-fixtures';

const BASE = '/v1/management/connections';
const CONNECT_ERROR = {
  code: 500,
  title: 'Database Connection Error',
  message: 'The adapter failed to connect to the target data source. Check credentials and network access.',
};

/** A create body for the loopback MariaDB, as `root` (no password) unless overridden. */
function aMariaConnection(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    configName: `maria-${randomUUID().slice(0, 8)}`,
    type: 'MYSQL',
    host: '127.0.0.1',
    port: 3306,
    databaseName: 'test',
    userName: 'root',
    password: '',
    ...overrides,
  };
}

describe('test and schema say why a dial failed (reason), against real PostgreSQL and MariaDB', () => {
  let mongoServer: MongoTestTarget;
  let sut: ManagerHarness;
  let maria: Awaited<ReturnType<typeof createMariaDatabase>>;

  beforeAll(async () => {
    mongoServer = await withMongo();
    maria = await createMariaDatabase();
    sut = await ManagerHarness.start(mongoServer.uri);
  });
  afterAll(async () => {
    await sut?.close();
    await mongoServer?.close();
    await maria?.drop();
  });

  async function dial(body: Record<string, unknown>): Promise<{ test: unknown; schema: unknown; testStatus: number; schemaStatus: number }> {
    const { id } = (await sut.create(body)) as { id: string };
    const test = await sut.request('POST', `${BASE}/${id}/test`);
    const schema = await sut.request('GET', `${BASE}/${id}/schema`);
    return { test: test.json(), schema: schema.json(), testStatus: test.status, schemaStatus: schema.status };
  }

  it('registers and dials a user with an empty password (MariaDB root)', async () => {
    const { id } = (await sut.create(aMariaConnection())) as { id: string };
    const res = await sut.request('POST', `${BASE}/${id}/test`);
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ status: 'success' });
  });

  it('still requires the password field itself', async () => {
    const { password: _omitted, ...body } = aMariaConnection();
    const res = await sut.request('POST', BASE, { headers: { 'x-product-name': 'reporter' }, body });
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ code: 'FET-0402', fields: { password: 'password is a required field' } });
  });

  it.each([
    ['MariaDB, wrong password (1045)', () => aMariaConnection({ userName: maria.user, password: 'wrong', databaseName: maria.database }), 'authentication'],
    ['MariaDB, unknown database (1049)', () => aMariaConnection({ databaseName: `nodb_${randomUUID().slice(0, 8)}` }), 'unknown_database'],
    ['MariaDB, no rights on the database (1044)', () => aMariaConnection({ userName: maria.user, password: maria.password, databaseName: 'mysql' }), 'authentication'],
    ['PostgreSQL, unknown role (28000)', () => aPostgresConnection({ userName: `norole_${randomUUID().slice(0, 8)}` }), 'authentication'],
    ['PostgreSQL, unknown database (3D000)', () => aPostgresConnection({ databaseName: `nodb_${randomUUID().slice(0, 8)}` }), 'unknown_database'],
    ['PostgreSQL, refused port', () => aPostgresConnection({ port: 1 }), 'refused'],
    ['MariaDB, refused port', () => aMariaConnection({ port: 1 }), 'refused'],
    ['PostgreSQL, unresolvable host', () => aPostgresConnection({ host: `no-such-host-${randomUUID().slice(0, 8)}.invalid` }), 'host_not_found'],
  ])('%s: 500 Database Connection Error with its reason on test and schema', async (_name, body, reason) => {
    const answer = await dial(body());
    expect(answer).toEqual({ testStatus: 500, schemaStatus: 500, test: { ...CONNECT_ERROR, reason }, schema: { ...CONNECT_ERROR, reason } });
  });

  it('never puts driver text in the answer', async () => {
    const { test } = await dial(aMariaConnection({ userName: maria.user, password: 'wrong-pw-distinctive', databaseName: maria.database }));
    expect(JSON.stringify(test)).not.toMatch(/denied|wrong-pw-distinctive|ER_|1045/i);
  });
});
