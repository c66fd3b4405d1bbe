import { createHmac, hkdfSync, randomUUID } from 'node:crypto';
import { getConnectionToken } from '@nestjs/mongoose';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { withMongo, type MongoTestTarget } from '@fetcher/mongo-test-server';
import amqplib, { type Channel, type ChannelModel, type GetMessage } from 'amqplib';
import type { Connection, mongo } from 'mongoose';
import { v7 as uuidv7 } from 'uuid';
import { JOB_MODEL, JobSchema } from '../adapters/mongo/job.schema';
import { MongoModule } from '../adapters/mongo/mongo.module';
import { loadManagerConfig, type ManagerConfig, mongoSettings } from '../config/manager.config';
import { createManagerApp } from '../http/http-app';
import { CLOCK } from '../ports/clock.port';
import { JOB_REPOSITORY, type JobRepository } from '../ports/job-repository.port';
import { binaryToUuid } from '@fetcher/contracts';
import { FakeClock } from '../testing/fake-clock';
import { aPostgresConnection } from '../testing/manager-harness';
import { createPostgresSchema } from '../testing/sql-fixtures';
import { managerTestEnv } from '../testing/manager-test-env';
import { pollUntil } from '../testing/poll';
import { FaultProxy } from '@fetcher/platform/testing';
import { drainQueue } from '../testing/amqp-queue';
import { DispatchMarks } from './commands/dispatch-marks';
import { DispatchSweep } from './dispatch/dispatch-sweep';

/** An operator-configured datasource: exempt from ownership and the connectivity check. */
const INTERNAL_PG = {
  DATASOURCE_PGI_CONFIG_NAME: 'pg-internal',
  DATASOURCE_PGI_TYPE: 'POSTGRESQL',
  DATASOURCE_PGI_HOST: '127.0.0.1',
  DATASOURCE_PGI_PORT: '5432',
  DATASOURCE_PGI_DATABASE: 'test',
  DATASOURCE_PGI_USER: 'postgres',
};

interface Manager {
  app: NestFastifyApplication;
  config: ManagerConfig;
  env: Record<string, string>;
  clock: FakeClock;
  jobs: mongo.Collection;
  post(body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: Record<string, unknown>; headers: Record<string, unknown> }>;
  get(id: string): Promise<{ status: number; body: Record<string, unknown> }>;
}

function aJobBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    dataRequest: { mappedFields: { 'pg-internal': { transactions: ['id', 'amount'] } }, filters: { 'pg-internal': { transactions: { status: { eq: ['completed'] } } } } },
    metadata: { source: 'reporter', correlationId: randomUUID() },
    ...overrides,
  };
}

/** The Worker's signature check written out with node:crypto alone, so it shares no code with the signer. */
function verifies(masterKeyBase64: string, message: GetMessage, queue: string): boolean {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(masterKeyBase64, 'base64'), Buffer.alloc(0), 'fetcher-internal-hmac-v1', 32));
  const headers = message.properties.headers ?? {};
  const jobId = (JSON.parse(message.content.toString('utf8')) as { jobId: string }).jobId;
  const expected = createHmac('sha256', key)
    .update(`${String(headers.t)}\nv1\n\n${jobId}\n\n${queue}\n`, 'utf8')
    .update(message.content)
    .digest('hex');
  return headers['x-message-signature'] === expected && headers['signature-version'] === 'v1';
}

describe('job routes against RabbitMQ and the MongoDB test server', () => {
  let target: MongoTestTarget;
  let broker: ChannelModel;
  let channel: Channel;
  const apps: NestFastifyApplication[] = [];
  const queues = new Set<string>();

  // Stored connections point at the loopback PostgreSQL; job creation checks their tables, so jobs name this throw-away schema's.
  let pg: Awaited<ReturnType<typeof createPostgresSchema>>;

  beforeAll(async () => {
    pg = await createPostgresSchema();
    target = await withMongo();
    broker = await amqplib.connect('amqp://guest:guest@127.0.0.1:5672');
    channel = await broker.createChannel();
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const queue of queues) await channel.deleteQueue(queue);
    await broker.close();
    await target.close();
    await pg.drop();
  });

  async function startManager(overrides: Record<string, string> = {}, clock = new FakeClock(new Date())): Promise<Manager> {
    const env = managerTestEnv(target.uri, { ...INTERNAL_PG, ...overrides });
    const config = loadManagerConfig(env);
    queues.add(config.amqp.workQueue);
    const app = await createManagerApp(config, {
      logger: false,
      redisKeyPrefix: `it:${randomUUID()}:`,
      infrastructure: {
        imports: [MongoModule.forRoot(mongoSettings(config), [{ name: JOB_MODEL, schema: JobSchema }])],
        providers: [{ provide: CLOCK, useValue: clock }],
      },
    });
    apps.push(app);
    const inject = async (method: 'GET' | 'POST', url: string, payload?: string, headers: Record<string, string> = {}) => {
      const res = await app.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) });
      return { status: res.statusCode, body: (res.body ? JSON.parse(res.body) : {}) as Record<string, unknown>, headers: res.headers };
    };
    return {
      app,
      config,
      env,
      clock,
      jobs: app.get<Connection>(getConnectionToken()).collection('job'),
      post: (body, headers = {}) =>
        inject('POST', '/v1/fetcher', typeof body === 'string' ? body : JSON.stringify(body), { 'content-type': 'application/json', ...headers }),
      get: (id) => inject('GET', `/v1/fetcher/${id}`),
    };
  }

  const messages = (queue: string): Promise<GetMessage[]> => drainQueue(channel, queue);

  describe('one Manager', () => {
    let m: Manager;
    beforeAll(async () => {
      m = await startManager();
    });

    it('creates a job, sends the Worker a message an independent verifier accepts, and reads it back', async () => {
      const body = aJobBody();
      const res = await m.post(body, { 'x-request-id': 'req-create-1' });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ jobId: expect.any(String), status: 'pending', createdAt: m.clock.now().toISOString(), message: 'Job created and queued for processing' });
      const jobId = res.body.jobId as string;

      const [message, ...extra] = await messages(m.config.amqp.workQueue);
      expect(extra).toEqual([]);
      expect(message.properties).toMatchObject({ deliveryMode: 2, contentType: 'application/json' });
      expect(message.properties.headers).toMatchObject({ jobId, 'X-Request-Id': 'req-create-1', 'x-retry-count': 0, 'signature-version': 'v1' });
      expect(message.properties.headers?.['X-Tenant-ID']).toBeUndefined();
      expect(verifies(m.env.APP_ENC_KEY, message, m.config.amqp.workQueue)).toBe(true);
      expect(JSON.parse(message.content.toString())).toEqual({
        createdAt: m.clock.now().toISOString(),
        filters: body.dataRequest && (body.dataRequest as Record<string, unknown>).filters,
        jobId,
        mappedFields: { 'pg-internal': { transactions: ['id', 'amount'] } },
        metadata: body.metadata,
      });

      // The dispatch is recorded after the answer: wait for that write, not for time.
      await m.app.get(DispatchMarks).settled();
      const doc = await m.jobs.findOne({});
      expect(doc).toMatchObject({ status: 'pending', dedup_active: true, dispatch_attempts: 1, dispatched_at: m.clock.now() });

      const read = await m.get(jobId);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({
        id: jobId,
        metadata: body.metadata,
        mappedFields: { 'pg-internal': { transactions: ['id', 'amount'] } },
        filters: { 'pg-internal': { transactions: { status: { eq: ['completed'] } } } },
        status: 'pending',
        requestHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        createdAt: m.clock.now().toISOString(),
      });
    });

    it('hides the Worker bookkeeping and shows its progress', async () => {
      const res = await m.post(aJobBody());
      const jobId = res.body.jobId as string;
      await m.jobs.updateOne(
        { request_hash: (await m.get(jobId)).body.requestHash },
        {
          $set: {
            status: 'processing',
            'metadata.terminalEventPending': true,
            'metadata.terminalEventStatus': 'completed',
            'metadata.terminalEventPayload': '{}',
            lease: { token: 't', owner: 'w', expires_at: new Date() },
            progress: { tables_done: 1, rows_so_far: 250, updated_at: new Date() },
          },
        },
      );
      const read = await m.get(jobId);
      expect(read.body).toMatchObject({ status: 'processing', progress: { tablesDone: 1, rowsSoFar: 250 } });
      expect(Object.keys(read.body.metadata as object).sort()).toEqual(['correlationId', 'source']);
      expect(read.body).not.toHaveProperty('lease');
      expect(read.body).not.toHaveProperty('dispatchAttempts');
      await messages(m.config.amqp.workQueue);
    });

    it('answers 20 concurrent identical requests with one job and one message', async () => {
      const body = JSON.stringify(aJobBody());
      const answers = await Promise.all(Array.from({ length: 20 }, () => m.post(body)));
      const created = answers.filter((a) => a.status === 202);
      const duplicates = answers.filter((a) => a.status === 200);
      expect(created).toHaveLength(1);
      expect(duplicates).toHaveLength(19);
      const jobId = created[0].body.jobId;
      for (const d of duplicates) expect(d.body).toMatchObject({ jobId, message: 'Duplicate request detected - returning existing job' });
      expect(await m.jobs.countDocuments({ request_hash: (await m.get(jobId as string)).body.requestHash })).toBe(1);
      const sent = await messages(m.config.amqp.workQueue);
      expect(sent.map((s) => s.properties.headers?.jobId)).toEqual([jobId]);
    });

    it('never dedupes a failed job', async () => {
      const body = JSON.stringify(aJobBody());
      const first = await m.post(body);
      await m.jobs.updateOne({ request_hash: (await m.get(first.body.jobId as string)).body.requestHash }, { $set: { status: 'failed', dedup_active: false } });
      const second = await m.post(body);
      expect(second.status).toBe(202);
      expect(second.body.jobId).not.toBe(first.body.jobId);
      await messages(m.config.amqp.workQueue);
    });

    it('dedupes a completed job for five minutes from its creation', async () => {
      const body = JSON.stringify(aJobBody());
      const first = await m.post(body);
      const hash = (await m.get(first.body.jobId as string)).body.requestHash;
      await m.jobs.updateOne({ request_hash: hash }, { $set: { status: 'completed', dedup_active: false, completed_at: m.clock.now() } });
      m.clock.advance(5 * 60_000);
      expect(await m.post(body)).toMatchObject({ status: 200, body: { jobId: first.body.jobId, status: 'completed' } });
      m.clock.advance(1);
      const later = await m.post(body);
      expect(later.status).toBe(202);
      expect(later.body.jobId).not.toBe(first.body.jobId);
      await messages(m.config.amqp.workQueue);
    });

    describe('every FET code of the two routes', () => {
      const cases: [string, unknown, string | undefined, number, Record<string, unknown>][] = [
        ['a wrong content type', JSON.stringify(aJobBody()), 'text/plain', 400, { code: 'FET-0001', title: 'Bad Request', message: 'unable to parse request body' }],
        ['malformed JSON', '{"dataRequest":', 'application/json', 400, { code: 'FET-0001', message: 'unable to parse request body' }],
        ['a body that is an array', '[]', 'application/json', 400, { code: 'FET-0001' }],
        ['mappedFields of the wrong type', { dataRequest: { mappedFields: 'x' }, metadata: { source: 'r' } }, undefined, 400, { code: 'FET-0001' }],
        ['an operator value that is not an array', { dataRequest: { mappedFields: { a: { t: ['f'] } }, filters: { a: { t: { f: { eq: 1 } } } } }, metadata: { source: 'r' } }, undefined, 400, { code: 'FET-0001' }],
        [
          'missing mappedFields',
          { dataRequest: {}, metadata: { source: 'r' } },
          undefined,
          400,
          { code: 'FET-0402', title: 'Missing Fields in Request', fields: { mappedFields: 'dataRequest.mappedFields is a required field' } },
        ],
        ['empty mappedFields', { dataRequest: { mappedFields: {} }, metadata: { source: 'r' } }, undefined, 400, { code: 'FET-0401', title: 'Invalid Data Request', message: 'mappedFields cannot be empty' }],
        ['a datasource without fields', { dataRequest: { mappedFields: { a: { t: [] } } }, metadata: { source: 'r' } }, undefined, 400, { code: 'FET-0401', message: 'datasource must have at least one table with fields' }],
        [
          'eleven datasources',
          { dataRequest: { mappedFields: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`d${i}`, { t: ['f'] }])) }, metadata: { source: 'r' } },
          undefined,
          400,
          { code: 'FET-0401', message: 'Maximum 10 datasources allowed per job, got 11' },
        ],
        ['no metadata', { dataRequest: { mappedFields: { a: { t: ['f'] } } } }, undefined, 400, { code: 'FET-0402', title: 'Missing Required Field', message: "metadata is required and must contain 'source' field" }],
        ['no source', { dataRequest: { mappedFields: { a: { t: ['f'] } } }, metadata: {} }, undefined, 400, { code: 'FET-0402', title: 'Missing Required Field', message: 'metadata.source is required for job notification routing' }],
        ['a blank source', { dataRequest: { mappedFields: { a: { t: ['f'] } } }, metadata: { source: ' ' } }, undefined, 400, { code: 'FET-0402', title: 'Invalid Field Value', message: 'metadata.source must be a non-empty string' }],
        [
          'a filter on an unknown datasource',
          { dataRequest: { mappedFields: { a: { t: ['f'] } }, filters: { b: { t: { f: { eq: [1] } } } } }, metadata: { source: 'r' } },
          undefined,
          400,
          { code: 'FET-0401', title: 'Invalid Filter References', message: "filter references unknown datasource 'b' not found in mappedFields" },
        ],
        ['nothing resolvable', { dataRequest: { mappedFields: { nope: { t: ['f'] } } }, metadata: { source: 'r' } }, undefined, 400, { code: 'FET-1020', title: 'No Connections Found' }],
        [
          'one unresolvable datasource',
          { dataRequest: { mappedFields: { 'pg-internal': { t: ['f'] }, nope: { t: ['f'] } } }, metadata: { source: 'r' } },
          undefined,
          400,
          { code: 'FET-1020', title: 'Missing Data Source', message: "No connection configured for datasource 'nope'" },
        ],
      ];
      it.each(cases)('%s', async (_, body, contentType, status, expected) => {
        const res = await m.post(body, contentType ? { 'content-type': contentType } : {});
        expect(res.status).toBe(status);
        expect(res.body).toMatchObject(expected);
      });

      async function storedConnection(change?: Record<string, unknown>): Promise<string> {
        const configName = `pg-${randomUUID().slice(0, 8)}`;
        const res = await m.app.inject({
          method: 'POST',
          url: '/v1/management/connections',
          headers: { 'content-type': 'application/json', 'x-product-name': 'reporter' },
          payload: JSON.stringify(aPostgresConnection({ configName })),
        });
        expect(res.statusCode).toBe(201);
        if (change) await m.app.get<Connection>(getConnectionToken()).collection('connection').updateOne({ config_name: configName }, { $set: change });
        return configName;
      }
      const jobOn = (configName: string, source = 'reporter') => ({ dataRequest: { mappedFields: { [configName]: { [`${pg.schema}.orders`]: ['id'] } } }, metadata: { source, n: randomUUID() } });

      it('creates a job on a stored connection owned by the source product after dialling it', async () => {
        expect((await m.post(jobOn(await storedConnection()))).status).toBe(202);
        await messages(m.config.amqp.workQueue);
      });

      it('FET-1014 for an unassigned stored connection', async () => {
        const name = await storedConnection({ product_name: '' });
        expect(await m.post(jobOn(name))).toMatchObject({ status: 400, body: { code: 'FET-1014', title: 'Connection Not Assigned' } });
      });

      it('FET-1016 for another product, compared case-sensitively', async () => {
        const name = await storedConnection();
        expect(await m.post(jobOn(name, 'Reporter'))).toMatchObject({
          status: 400,
          body: { code: 'FET-1016', title: 'Product Mismatch', message: `Connection '${name}' does not belong to the product identified by source 'Reporter'` },
        });
      });

      it('FET-1040 for a connection that does not answer', async () => {
        const name = await storedConnection({ port: 1 });
        expect(await m.post(jobOn(name))).toMatchObject({ status: 400, body: { code: 'FET-1040', title: 'Connection Down', message: `Connection '${name}' is not available` } });
      });

      it('FET-0414 for a host the guard denies at dial time', async () => {
        const name = await storedConnection({ host: '127.0.0.2' });
        expect(await m.post(jobOn(name))).toMatchObject({ status: 400, body: { code: 'FET-0414', title: 'Forbidden Host' } });
      });

      it('FET-0413 for an ssl mode the type refuses at dial time', async () => {
        const name = await storedConnection({ ssl: { mode: 'bogus' } });
        expect(await m.post(jobOn(name))).toMatchObject({ status: 400, body: { code: 'FET-0413', title: 'Invalid SSL Mode' } });
      });

      it('FET-0404 for a malformed job id, FET-1001 for an unknown one, and the lenient forms', async () => {
        expect(await m.get('not-a-uuid')).toMatchObject({ status: 400, body: { code: 'FET-0404', title: 'Invalid Path Parameter', message: 'invalid job id' } });
        expect(await m.get(uuidv7())).toMatchObject({ status: 404, body: { code: 'FET-1001', title: 'Entity Not Found' } });
        const created = await m.post(aJobBody());
        const id = created.body.jobId as string;
        expect((await m.get(`{${id.toUpperCase()}}`)).body.id).toBe(id);
        expect((await m.get(id.replace(/-/g, ''))).body.id).toBe(id);
        await messages(m.config.amqp.workQueue);
      });
    });
  });

  describe('identical requests in a burst, on a stored PostgreSQL connection behind a counting proxy', () => {
    let m: Manager;
    let proxy: FaultProxy;
    let configName: string;
    beforeAll(async () => {
      proxy = new FaultProxy(5432);
      await proxy.start();
      m = await startManager();
      configName = `pg-${randomUUID().slice(0, 8)}`;
      const res = await m.app.inject({
        method: 'POST',
        url: '/v1/management/connections',
        headers: { 'content-type': 'application/json', 'x-product-name': 'reporter' },
        payload: JSON.stringify(aPostgresConnection({ configName, port: proxy.port })),
      });
      expect(res.statusCode).toBe(201);
    });
    afterAll(() => proxy.close());
    afterEach(async () => {
      proxy.releaseAll();
      await messages(m.config.amqp.workQueue);
    });

    const burstBody = () => ({ dataRequest: { mappedFields: { [configName]: { [`${pg.schema}.orders`]: ['id'] } } }, metadata: { source: 'reporter', n: randomUUID() } });
    const histogram = (answers: { status: number }[]) => answers.reduce<Record<number, number>>((h, a) => ({ ...h, [a.status]: (h[a.status] ?? 0) + 1 }), {});

    it('dials the datasource once (and discovers its schema once) for 30 identical concurrent requests', async () => {
      const body = JSON.stringify(burstBody());
      const before = proxy.accepted;
      const answers = await Promise.all(Array.from({ length: 30 }, () => m.post(body)));
      expect(histogram(answers)).toEqual({ 200: 29, 202: 1 });
      expect(proxy.accepted - before).toBeLessThanOrEqual(2); // the dial, and the schema check's discovery unless cached
    });

    /**
     * Holds every dial, lets one through so its request stores the job, moves that job to `status`
     * while the others still wait on their dials (or on the first request), then lets them all go.
     */
    async function burstWithFirstJobMovedTo(status: 'completed' | 'failed') {
      const payload = burstBody();
      const body = JSON.stringify(payload);
      proxy.hold();
      const answers = Promise.all(Array.from({ length: 30 }, () => m.post(body)));
      await pollUntil(() => proxy.held > 0);
      proxy.releaseNewest();
      const first = await pollUntil(() => m.jobs.findOne({ 'metadata.n': payload.metadata.n }));
      await m.jobs.updateOne({ _id: first._id }, { $set: { status, dedup_active: false, completed_at: m.clock.now() } });
      proxy.releaseAll();
      const settled = await answers;
      const jobs = await m.jobs.find({ 'metadata.n': payload.metadata.n }).toArray();
      return { answers: settled, jobs };
    }

    it('answers with one job, 200 or 202 only, when the first job completes in the middle of the burst', async () => {
      const { answers, jobs } = await burstWithFirstJobMovedTo('completed');
      expect(histogram(answers)).toEqual({ 200: 29, 202: 1 });
      expect(jobs).toHaveLength(1);
      expect(new Set(answers.map((a) => a.body.jobId))).toEqual(new Set([binaryToUuid(jobs[0]._id)]));
    });

    it('answers 200 or 202 only, with at most one retry job, when the first job fails in the middle of the burst', async () => {
      const { answers, jobs } = await burstWithFirstJobMovedTo('failed');
      expect(Object.keys(histogram(answers)).filter((s) => s !== '200' && s !== '202')).toEqual([]);
      expect(jobs.filter((j) => j.status !== 'failed').length).toBeLessThanOrEqual(1);
    });

    it('dials one connection at most four at a time for distinct requests, and answers them all', async () => {
      proxy.hold();
      proxy.maxHeld = 0;
      let done = 0;
      const answers = Promise.all(
        Array.from({ length: 12 }, () =>
          m.post(burstBody()).then((a) => {
            done += 1;
            return a;
          }),
        ),
      );
      while (done < 12) {
        await pollUntil(() => proxy.held > 0 || done === 12);
        proxy.releaseNewest();
      }
      expect(histogram(await answers)).toEqual({ 202: 12 });
      expect(proxy.maxHeld).toBeLessThanOrEqual(4);
    });
  });

  it('fails the job with 500 while the broker is unreachable, and dispatches again once it is back', async () => {
    const proxy = new FaultProxy(5672);
    await proxy.start();
    try {
      const m = await startManager({ RABBITMQ_HOST: '127.0.0.1', RABBITMQ_PORT_AMQP: String(proxy.port) });
      expect((await m.post(aJobBody())).status).toBe(202);
      await messages(m.config.amqp.workQueue);
      await m.app.get(DispatchMarks).settled(); // so that the only undispatched job below is the failed one

      proxy.cut();
      await pollUntil(async () => (await m.app.inject({ method: 'GET', url: '/readyz' })).statusCode === 503);
      const down = await m.post(aJobBody());
      expect(down).toMatchObject({
        status: 500,
        body: { code: 'FET-0002', title: 'Internal Server Error', message: 'The server encountered an unexpected error. Please try again later or contact support.' },
      });
      expect(await m.jobs.findOne({ dispatched_at: null })).toMatchObject({
        status: 'failed',
        dedup_active: false,
        completed_at: m.clock.now(),
        metadata: { error: 'process failed: unable to publish' },
      });

      proxy.restore();
      await pollUntil(async () => (await m.app.inject({ method: 'GET', url: '/readyz' })).statusCode === 200, 20_000);
      const back = await m.post(aJobBody());
      expect(back.status).toBe(202);
      expect((await messages(m.config.amqp.workQueue)).map((x) => x.properties.headers?.jobId)).toEqual([back.body.jobId]);
      await m.app.close();
      apps.splice(apps.indexOf(m.app), 1);
    } finally {
      await proxy.close();
    }
  });

  it('republishes a job stored without a publish exactly once, from only one of two Managers', async () => {
    const shared = { MONGO_NAME: `mgr_${randomUUID().replace(/-/g, '').slice(0, 16)}`, RABBITMQ_FETCHER_WORK_QUEUE: `fetcher.test.${randomUUID()}` };
    const clock = new FakeClock(new Date());
    const a = await startManager(shared, clock);
    const b = await startManager({ ...shared, APP_ENC_KEY: a.env.APP_ENC_KEY }, clock);
    const job = {
      id: uuidv7(),
      status: 'pending' as const,
      mappedFields: { 'pg-internal': { t: ['f'] } },
      metadata: { source: 'reporter' },
      requestHash: 'sweep-test',
      createdAt: clock.now(),
      completedAt: null,
      dispatchedAt: null,
      dispatchAttempts: 0,
    };
    // What a Manager leaves behind when it dies between the insert and the publish.
    await a.app.get<JobRepository>(JOB_REPOSITORY).insert({ tenantId: 'default' }, job);
    const sweeps = [a.app.get(DispatchSweep), b.app.get(DispatchSweep)];

    expect((await Promise.all(sweeps.map((s) => s.sweepOnce()))).map((o) => o.republished)).toEqual([0, 0]); // too young
    clock.advance(61_000);
    const outcomes = await Promise.all(sweeps.map((s) => s.sweepOnce()));
    expect(outcomes.reduce((sum, o) => sum + o.republished, 0)).toBe(1);
    clock.advance(10 * 60_000);
    expect((await Promise.all(sweeps.map((s) => s.sweepOnce()))).map((o) => o.republished)).toEqual([0, 0]);

    const sent = await messages(shared.RABBITMQ_FETCHER_WORK_QUEUE);
    expect(sent.map((s) => s.properties.headers?.jobId)).toEqual([job.id]);
    expect(verifies(a.env.APP_ENC_KEY, sent[0], shared.RABBITMQ_FETCHER_WORK_QUEUE)).toBe(true);
    expect(await a.jobs.findOne({})).toMatchObject({ status: 'pending', dispatched_at: expect.any(Date), dispatch_attempts: 2, dispatch_lock_until: null });
    const metrics = await Promise.all([a, b].map(async (m) => (await m.app.inject({ method: 'GET', url: '/metrics' })).body));
    const counted = metrics.map((text) => Number(/^fetcher_manager_dispatch_sweep_republished_total (\d+)/m.exec(text)?.[1] ?? 'NaN'));
    expect(counted.sort()).toEqual([0, 1]);
  });
});
