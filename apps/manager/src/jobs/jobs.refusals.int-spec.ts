// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { type MongoTestTarget, withMongo } from '@fetcher/mongo-test-server';
import amqplib from 'amqplib';
import { randomUUID } from 'node:crypto';
import { aPostgresConnection, ManagerHarness } from '../testing/manager-harness';
import { createPostgresSchema } from '../testing/sql-fixtures';

/** Job creation refusing what the Worker could never run as asked, on a stored connection to a throw-away PostgreSQL schema. */
describe('job creation refusals against a real PostgreSQL', () => {
  let mongoServer: MongoTestTarget;
  let sut: ManagerHarness;
  let pg: Awaited<ReturnType<typeof createPostgresSchema>>;
  let configName: string;

  beforeAll(async () => {
    mongoServer = await withMongo();
    pg = await createPostgresSchema();
    sut = await ManagerHarness.start(mongoServer.uri, { REDIS_HOST: '127.0.0.1' });
    configName = (await sut.create(aPostgresConnection({ schema: pg.schema }))).configName as string;
  });
  afterAll(async () => {
    await sut?.close();
    if (sut) {
      const broker = await amqplib.connect('amqp://guest:guest@127.0.0.1:5672');
      const channel = await broker.createChannel();
      await channel.deleteQueue(sut.config.amqp.workQueue);
      await broker.close();
    }
    await mongoServer?.close();
    await pg?.drop();
  });

  const post = (filters: unknown, tables: Record<string, string[]> = { [`${pg.schema}.orders`]: ['id', 'total'] }) =>
    sut.request('POST', '/v1/fetcher', {
      body: { dataRequest: { mappedFields: { [configName]: tables }, filters: { [configName]: filters } }, metadata: { source: 'reporter', n: randomUUID() } },
    });
  const jobCount = () => sut.collection('job').countDocuments();

  it.each([
    ['malformed operands', { total: { between: [5] } }, 'total', 'between', "operator 'between' needs exactly 2 values, got 1"],
    ['an unknown operator', { total: { greater: [5] } }, 'total', 'greater', "unknown operator 'greater' (use one of eq, gt, gte, lt, lte, between, in, nin, ne, like)"],
  ])('refuses %s with 400 FET-0415 naming the filter, and stores no job', async (_name, condition, field, operator, what) => {
    const before = await jobCount();
    const table = `${pg.schema}.orders`;
    const answer = await post({ [table]: condition });
    const message = `filter on '${configName}.${table}.${field}': ${what}`;
    expect({ status: answer.status, body: answer.json() }).toEqual({
      status: 400,
      body: { code: 'FET-0415', title: 'Invalid Filter', message, errors: [{ dataSourceId: configName, table, field, operator, message }] },
    });
    expect(await jobCount()).toBe(before);
  });

  it('refuses a filter on a table the request does not map', async () => {
    const answer = await post({ [`${pg.schema}.accounts`]: { id: { eq: [1] } } });
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({
      code: 'FET-0415',
      message: `filter on table '${configName}.${pg.schema}.accounts': the table is not in mappedFields of datasource '${configName}'`,
    });
  });

  it('accepts a well-formed filter, also on a column the job does not return', async () => {
    const answer = await post({ [`${pg.schema}.orders`]: { total: { between: [1, 9] }, id: { gt: [0] } } }, { [`${pg.schema}.orders`]: ['id'] });
    expect(answer.status).toBe(202);
  });

  it('refuses a missing table and field with 400 FET-1060 naming them and the validate-schema report, and stores no job', async () => {
    const before = await jobCount();
    const tables = { [`${pg.schema}.orders`]: ['id', 'colour'], [`${pg.schema}.invoices`]: ['id'], [`${pg.schema}.accounts`]: ['*'] };
    const answer = await sut.request('POST', '/v1/fetcher', { body: { dataRequest: { mappedFields: { [configName]: tables } }, metadata: { source: 'reporter' } } });
    const errors = [
      { type: 'TABLE_NOT_FOUND', dataSourceId: configName, table: `${pg.schema}.invoices` },
      { type: 'FIELD_NOT_FOUND', dataSourceId: configName, table: `${pg.schema}.orders`, field: 'colour' },
    ];
    expect({ status: answer.status, body: answer.json() }).toEqual({
      status: 400,
      body: {
        title: 'Schema validation failed',
        code: 'FET-1060',
        message: `Schema validation found inconsistencies: table '${configName}.${pg.schema}.invoices' not found; field '${configName}.${pg.schema}.orders.colour' not found`,
        errors,
      },
    });
    expect(await jobCount()).toBe(before);
    // The same report as the validate-schema route gives for the same names.
    const validated = await sut.request('POST', '/v1/management/connections/validate-schema', { body: { mappedFields: { [configName]: tables } } });
    expect(validated.json()).toMatchObject({ code: 'FET-1060', title: 'Schema validation failed', errors });
  });

  it('refuses a filter on a field the table does not have with 400 FET-1060 naming it, and stores no job', async () => {
    const before = await jobCount();
    const table = `${pg.schema}.orders`;
    const answer = await post({ [table]: { tint: { eq: ['red'] }, total: { gt: [1] } } }, { [table]: ['id'] });
    expect({ status: answer.status, body: answer.json() }).toEqual({
      status: 400,
      body: {
        title: 'Schema validation failed',
        code: 'FET-1060',
        message: `Schema validation found inconsistencies: filter field '${configName}.${table}.tint' not found`,
        errors: [{ type: 'FIELD_NOT_FOUND', dataSourceId: configName, table, field: 'tint', in: 'filters' }],
      },
    });
    expect(await jobCount()).toBe(before);
  });
});
