import { randomUUID } from 'node:crypto';
import { type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { type MongoTestTarget, withMongo } from '@fetcher/mongo-test-server';
import { MongoModule } from '../adapters/mongo/mongo.module';
import { JOB_MODEL, JobSchema } from '../adapters/mongo/job.schema';
import { loadManagerConfig, mongoSettings } from '../config/manager.config';
import { CLOCK, type Clock } from '../ports/clock.port';
import { answerProblems, HOSTILE_ROUTES, type HostileRequest, type RequestContext } from '../testing/hostile-requests';
import { aPostgresConnection } from '../testing/manager-harness';
import { createPostgresSchema } from '../testing/sql-fixtures';
import { managerTestEnv } from '../testing/manager-test-env';
import { createManagerApp } from './http-app';
import { MAX_JSON_DEPTH } from './json-bounds';

const PRODUCT = 'hostile';
const SECRET_DSN = 'postgres://app:s3cret@db.internal/x';

/** The system clock, until a test makes it throw. */
class SwitchableClock implements Clock {
  failWith: Error | undefined;
  now(): Date {
    if (this.failWith) throw this.failWith;
    return new Date();
  }
}
const E8 = {
  title: 'Internal Server Error',
  message: 'The server encountered an unexpected error. Please try again later or contact support.',
  code: 'FET-0002',
};

/** `{"a":{"a":…leaf…}}`, `levels` objects deep. */
const nested = (levels: number, leaf = '1') => '{"a":'.repeat(levels) + leaf + '}'.repeat(levels);

interface Case {
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'PATCH';
  readonly path: (ids: { connection: string }) => string;
  /** Raw JSON text: `1e400` and `\u0000` must reach the server as written. */
  readonly body?: (names: { ds: string }) => string;
  readonly status: number;
  readonly code: string;
  readonly message?: string | RegExp;
}

const job = (dataRequest: string, metadata = `{"source":"${PRODUCT}"}`) => `{"dataRequest":${dataRequest},"metadata":${metadata}}`;
const mapped = (ds: string, tables = '{"t":["id"]}') => `{"mappedFields":{"${ds}":${tables}}}`;
const connection = (extra: string) =>
  `{"configName":"c-${randomUUID().slice(0, 8)}","type":"POSTGRESQL","host":"127.0.0.1","port":5432,"databaseName":"test","userName":"postgres","password":"x"${extra}}`;
const PARSE = 'unable to parse request body';

// Each of these answered 500 (or was accepted and then failed later) before the bounds existed.
const CASES: Case[] = [
  ...['__proto__', 'a.__proto__', 'a%00b'].map((key): Case => ({
    name: `a list filter on metadata.${key}`, method: 'GET', path: () => `/v1/management/connections?metadata.${key}=x`,
    status: 400, code: 'FET-0405', message: /'metadata\./,
  })),
  { name: '1e400 in job metadata', method: 'POST', path: () => '/v1/fetcher', body: ({ ds }) => job(mapped(ds), `{"source":"${PRODUCT}","n":1e400}`), status: 400, code: 'FET-0001', message: PARSE },
  { name: '-1e400 in a job filter', method: 'POST', path: () => '/v1/fetcher', body: ({ ds }) => job(`{"mappedFields":{"${ds}":{"t":["id"]}},"filters":{"${ds}":{"t":{"id":{"eq":[-1e400]}}}}}`), status: 400, code: 'FET-0001', message: PARSE },
  { name: '1e400 in connection metadata', method: 'POST', path: () => '/v1/management/connections', body: () => connection(',"metadata":{"n":1e400}'), status: 400, code: 'FET-0001', message: PARSE },
  { name: '1e400 in a connection patch', method: 'PATCH', path: ({ connection: id }) => `/v1/management/connections/${id}`, body: () => '{"metadata":{"n":1e400}}', status: 400, code: 'FET-0001', message: PARSE },
  { name: 'job metadata nested 5,000 deep', method: 'POST', path: () => '/v1/fetcher', body: ({ ds }) => job(mapped(ds), `{"source":"${PRODUCT}","d":${nested(5000)}}`), status: 400, code: 'FET-0001', message: PARSE },
  { name: `job metadata one level too deep (${MAX_JSON_DEPTH - 1} below it)`, method: 'POST', path: () => '/v1/fetcher', body: ({ ds }) => job(mapped(ds), `{"source":"${PRODUCT}","d":${nested(MAX_JSON_DEPTH - 1)}}`), status: 400, code: 'FET-0001', message: PARSE },
  { name: 'connection metadata nested 5,000 deep', method: 'POST', path: () => '/v1/management/connections', body: () => connection(`,"metadata":${nested(5000)}`), status: 400, code: 'FET-0001', message: PARSE },
  { name: 'a job filter value nested 3,000 deep', method: 'POST', path: () => '/v1/fetcher', body: ({ ds }) => job(`{"mappedFields":{"${ds}":{"t":["id"]}},"filters":{"${ds}":{"t":{"id":{"eq":[${'['.repeat(3000)}1${']'.repeat(3000)}]}}}}}`), status: 400, code: 'FET-0001', message: PARSE },
  { name: 'an object as a job filter value', method: 'POST', path: () => '/v1/fetcher', body: ({ ds }) => job(`{"mappedFields":{"${ds}":{"t":["id"]}},"filters":{"${ds}":{"t":{"id":{"eq":[{"$gt":1}]}}}}}`), status: 400, code: 'FET-0001', message: PARSE },
  { name: 'a job table name with NUL', method: 'POST', path: () => '/v1/fetcher', body: ({ ds }) => job(mapped(ds, '{"t\\u0000x":["id"]}')), status: 400, code: 'FET-0401', message: 'datasource, table and field names must not contain NUL characters' },
  { name: 'a job field name with NUL', method: 'POST', path: () => '/v1/fetcher', body: ({ ds }) => job(mapped(ds, '{"t":["i\\u0000d"]}')), status: 400, code: 'FET-0401' },
  { name: 'a job filter field name with NUL', method: 'POST', path: () => '/v1/fetcher', body: ({ ds }) => job(`{"mappedFields":{"${ds}":{"t":["id"]}},"filters":{"${ds}":{"t":{"i\\u0000d":{"eq":[1]}}}}}`), status: 400, code: 'FET-0001', message: PARSE },
  { name: 'a job metadata key with NUL', method: 'POST', path: () => '/v1/fetcher', body: ({ ds }) => job(mapped(ds), `{"source":"${PRODUCT}","a\\u0000b":1}`), status: 400, code: 'FET-0402', message: 'metadata keys must not contain NUL characters' },
  { name: 'a connection metadata key with NUL', method: 'POST', path: () => '/v1/management/connections', body: () => connection(',"metadata":{"a\\u0000b":1}'), status: 400, code: 'FET-0001', message: /invalid values/ },
  { name: 'a validate-schema table name with NUL', method: 'POST', path: () => '/v1/management/connections/validate-schema', body: ({ ds }) => mapped(ds, '{"t\\u0000x":["id"]}'), status: 400, code: 'FET-0401', message: /^table name must not contain NUL characters in datasource/ },
];

describe('the Manager refuses hostile input with its documented 4xx', () => {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk: Buffer, _enc, done) { lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)); done(); } });
  let mongo: MongoTestTarget;
  let app: NestFastifyApplication;
  let url: string;
  let ds: string;
  let connectionId: string;
  const clock = new SwitchableClock();
  let pg: Awaited<ReturnType<typeof createPostgresSchema>> | undefined;

  const send = async (method: string, path: string, body?: string) => {
    const res = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json', 'x-product-name': PRODUCT }, ...(body === undefined ? {} : { body }) });
    return { status: res.status, text: await res.text() };
  };

  beforeAll(async () => {
    mongo = await withMongo();
    // The logger on, as in production: the unhandled-error line is part of what is checked.
    const config = loadManagerConfig(managerTestEnv(mongo.uri, { LOG_LEVEL: 'info' }));
    app = await createManagerApp(config, {
      redisKeyPrefix: `it:${randomUUID()}:`,
      logDestination: sink,
      infrastructure: {
        imports: [MongoModule.forRoot(mongoSettings(config), [{ name: JOB_MODEL, schema: JobSchema }])],
        providers: [{ provide: CLOCK, useValue: clock }],
      },
    });
    // Listening also flushes the logs Nest buffers until then.
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    // A real table for the job that is accepted: job creation checks the mapped tables exist.
    pg = await createPostgresSchema();
    const created = await send('POST', '/v1/management/connections', JSON.stringify(aPostgresConnection({ schema: pg.schema })));
    expect(created.status).toBe(201);
    ({ id: connectionId, configName: ds } = JSON.parse(created.text) as { id: string; configName: string });
  });
  afterAll(async () => {
    await app?.close();
    await mongo?.close();
    await pg?.drop();
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const res = await send(c.method, c.path({ connection: connectionId }), c.body?.({ ds }));
    expect(res.status).toBe(c.status);
    const body = JSON.parse(res.text) as Record<string, unknown>;
    expect(body.code).toBe(c.code);
    if (c.message !== undefined) expect(body.message).toEqual(typeof c.message === 'string' ? c.message : expect.stringMatching(c.message));
    expect(res.text).not.toMatch(/stack|statusCode|Cannot read|BSON|Maximum call stack|canonicalJson|Infinity|\s+at\s/i);
  });

  it('still accepts a job whose metadata nests just inside the bound', async () => {
    const res = await send('POST', '/v1/fetcher', job(mapped(ds, `{"${pg!.schema}.orders":["id"]}`), `{"source":"${PRODUCT}","d":${nested(MAX_JSON_DEPTH - 2)}}`));
    expect(res.status).toBe(202);
    const jobs = await fetch(`${url}/v1/fetcher/${(JSON.parse(res.text) as { jobId: string }).jobId}`);
    expect(jobs.status).toBe(200);
  });

  it('answers a bug with E8 and writes its log line, without the message', async () => {
    // The clock stands in for any code that throws something untranslated.
    clock.failWith = new TypeError(`Cannot read properties of undefined (reading 'replace') for ${SECRET_DSN}`);
    try {
      const res = await send('POST', '/v1/management/connections', JSON.stringify(aPostgresConnection()));
      expect(res.status).toBe(500);
      expect(JSON.parse(res.text)).toEqual(E8);
    } finally {
      clock.failWith = undefined;
    }
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'unhandled error');
    expect(logged).toEqual([expect.objectContaining({ level: 50, err: { type: 'TypeError' } })]);
    expect(lines.join('\n')).not.toContain('s3cret');
  });
  /**
   * Generated requests per route (apps/manager/src/testing/hostile-requests.ts): 100 each here
   * (1,800 in all), 100,000 each in bench/hostile/requests.bench.ts. A connection and a job of their
   * own, since these requests delete, patch and assign what they hit.
   */
  describe('generated requests', () => {
    const RUNS_PER_ROUTE = 100;
    let ctx: RequestContext;

    const inject = async (r: HostileRequest) => {
      const res = await app.inject({ method: r.method, url: r.url, headers: r.headers, ...(r.body === undefined ? {} : { payload: r.body }) });
      return { status: res.statusCode, headers: res.headers as Record<string, unknown>, text: res.body };
    };

    beforeAll(async () => {
      const created = await send('POST', '/v1/management/connections', JSON.stringify(aPostgresConnection({ schema: pg!.schema })));
      expect(created.status).toBe(201);
      const connection = JSON.parse(created.text) as { id: string; configName: string };
      const jobRes = await send('POST', '/v1/fetcher', job(mapped(connection.configName, `{"${pg!.schema}.orders":["id"]}`), `{"source":"${PRODUCT}","fuzz":true}`));
      expect(jobRes.status).toBe(202);
      ctx = { connectionId: connection.id, configName: connection.configName, jobId: (JSON.parse(jobRes.text) as { jobId: string }).jobId, secret: `hostile-secret-${randomUUID()}` };
    });

    it.each(HOSTILE_ROUTES.map((r) => [r.name, r] as const))('%s: no 5xx, no internals, no echoed secret', async (_name, route) => {
      await fc.assert(
        fc.asyncProperty(route.request(ctx), async (request) => {
          expect(answerProblems(request, await inject(request), ctx.secret)).toEqual([]);
        }),
        { numRuns: RUNS_PER_ROUTE },
      );
    });

    it('logged none of the secrets it was sent', () => {
      expect(lines.join('\n')).not.toContain(ctx.secret);
    });
  });
});
