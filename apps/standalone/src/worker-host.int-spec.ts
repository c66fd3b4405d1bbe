import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deriveSubKeys, openEnvelope } from '@fetcher/platform';
import { Client } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { MemoryJobRepository } from '@fetcher/manager';
import { loadWorkerConfig } from '@fetcher/worker';
import { InProcessJobPublisher } from './adapters/in-process/job-publisher.in-process';
import { DATA_LAYOUT, openBackends, type Backends } from './backends';
import { appEnvironments, EMBEDDED_WORKER, STANDALONE_WORK_QUEUE } from './config/app-env';
import { loadStandaloneConfig } from './config/standalone.config';
import { DEMO_CONFIG_NAME, registerDemoConnection } from './demo/demo-connection';
import { DemoDatabase } from './demo/demo-database';
import { DEMO_ROW_COUNTS } from './demo/demo-seed';
import { eventually } from './testing/free-port';
import { startEmbeddedWorker, type EmbeddedWorker } from './worker-host';

describe('the Worker on the embedded backends, fed by the in-process queue', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-standalone-worker-'));
  const master = randomBytes(32);
  const demo = new DemoDatabase();
  let backends: Backends;
  let worker: EmbeddedWorker | undefined;
  let publisher: InProcessJobPublisher;

  // A throw-away schema in the loopback PostgreSQL (trust auth), behind a stored connection of the product `demo`.
  const pgSchema = `wh_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const pgConfigName = `pg-${randomUUID().slice(0, 8)}`;
  const admin = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });

  beforeAll(async () => {
    const config = loadStandaloneConfig({ FETCHER_DATA_DIR: dataDir }, dataDir);
    const workerConfig = loadWorkerConfig({ RESULT_SPOOL_DIR: join(dataDir, DATA_LAYOUT.spool), ...appEnvironments(config, master.toString('base64')).worker }, EMBEDDED_WORKER);
    backends = await openBackends(dataDir);
    await registerDemoConnection(backends.connections, workerConfig.ring, await demo.start({ dataDir: join(dataDir, DATA_LAYOUT.demoDatabase) }), new Date());
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${pgSchema}; CREATE TABLE ${pgSchema}.orders (id int, total numeric); INSERT INTO ${pgSchema}.orders VALUES (1, 10), (7, 70)`);
    const { ciphertext, keyVersion } = workerConfig.ring.encryptCredential('trust');
    await backends.connections.insert({ tenantId: 'default' }, {
      id: uuidv7(), productName: 'demo', configName: pgConfigName, type: 'POSTGRESQL', host: '127.0.0.1', port: 5432, databaseName: 'test',
      userName: 'postgres', passwordEncrypted: ciphertext, keyVersion, schema: pgSchema, ssl: { mode: 'disable' }, createdAt: new Date(), updatedAt: new Date(),
    });
    worker = await startEmbeddedWorker(backends, workerConfig, { logger: false });
    publisher = new InProcessJobPublisher(backends.queue, STANDALONE_WORK_QUEUE, deriveSubKeys(master).internalHmac, { now: () => new Date() });
  });

  afterAll(async () => {
    await worker?.close();
    await demo.stop();
    await admin.query(`DROP SCHEMA IF EXISTS ${pgSchema} CASCADE`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs a signed job to completion and stores a result that the master key alone opens', async () => {
    const jobs = new MemoryJobRepository(backends.jobs);
    const job = {
      id: uuidv7(),
      status: 'pending' as const,
      mappedFields: { [DEMO_CONFIG_NAME]: { 'shop.customers': ['id', 'email'], 'shop.products': ['*'] } },
      metadata: { source: 'demo' },
      requestHash: randomBytes(8).toString('hex'),
      createdAt: new Date(),
      completedAt: null,
      dispatchedAt: null,
      dispatchAttempts: 0,
    };
    await jobs.insert({ tenantId: 'default' }, job);
    await publisher.publishExtractionRequested({ tenantId: 'default' }, job, 'req-1');

    const done = await eventually(() => {
      const stored = backends.jobs.get(job.id);
      return stored && (stored.status === 'completed' || stored.status === 'failed') ? stored : undefined;
    });
    expect(done).toMatchObject({ status: 'completed', resultPath: `external-data/${job.id}.json` });

    const keys = deriveSubKeys(master);
    const stored = readFileSync(join(dataDir, DATA_LAYOUT.objects, done.resultPath!), 'utf8');
    const plaintext = openEnvelope(keys.storage, stored);
    expect(createHmac('sha256', keys.externalHmac).update(plaintext).digest('hex')).toBe(done.resultHmac);
    const document = JSON.parse(plaintext.toString('utf8'));
    expect(document.demo['shop.customers']).toHaveLength(DEMO_ROW_COUNTS.customers);
    expect(document.demo['shop.customers'][0]).toEqual({ email: 'customer1@example.com', id: 1 });
    expect(document.demo['shop.products']).toHaveLength(DEMO_ROW_COUNTS.products);

    // The event follows the terminal write (the job record is its outbox), so it may land a moment later.
    const events = await eventually(() => {
      const lines = existsSync(join(dataDir, DATA_LAYOUT.events)) ? readFileSync(join(dataDir, DATA_LAYOUT.events), 'utf8').trim().split('\n') : [];
      const parsed = lines.filter((l) => l !== '').map((l) => JSON.parse(l) as { routingKey: string; body: { jobId: string } });
      return parsed.some((e) => e.body.jobId === job.id) ? parsed : undefined;
    });
    expect(events).toContainEqual(expect.objectContaining({ routingKey: 'job.completed', body: expect.objectContaining({ jobId: job.id, status: 'completed' }) }));
    expect(backends.queue.depth).toBe(0);
  });

  /** Stores and sends a job the Manager never checked (as a job stored before an upgrade would be), and waits for its end. */
  async function runUnchecked(dataRequest: { mappedFields: Record<string, Record<string, string[]>>; filters?: Record<string, unknown> }) {
    const jobs = new MemoryJobRepository(backends.jobs);
    const job = {
      id: uuidv7(),
      status: 'pending' as const,
      ...dataRequest,
      metadata: { source: 'demo' },
      requestHash: randomBytes(8).toString('hex'),
      createdAt: new Date(),
      completedAt: null,
      dispatchedAt: null,
      dispatchAttempts: 0,
    };
    await jobs.insert({ tenantId: 'default' }, job as Parameters<typeof jobs.insert>[1]);
    await publisher.publishExtractionRequested({ tenantId: 'default' }, job as Parameters<typeof jobs.insert>[1], 'req-2');
    return eventually(() => {
      const stored = backends.jobs.get(job.id);
      return stored && (stored.status === 'completed' || stored.status === 'failed') ? stored : undefined;
    });
  }

  it('fails a job on a missing table and field of a real PostgreSQL naming the datasource, table and field', async () => {
    const done = await runUnchecked({ mappedFields: { [pgConfigName]: { [`${pgSchema}.orders`]: ['id', 'colour'], [`${pgSchema}.invoices`]: ['id'] } } });
    expect(done).toMatchObject({ status: 'failed' });
    expect(done.metadata.error).toBe(
      'engine extraction: engine: [validation] extraction request failed schema validation: ' +
        `table not found in datasource schema: ${pgConfigName}.${pgSchema}.invoices; field not found in table schema: ${pgConfigName}.${pgSchema}.orders.colour`,
    );
  });

  it('fails a job with a malformed filter naming it, instead of extracting the whole table', async () => {
    const done = await runUnchecked({
      mappedFields: { [pgConfigName]: { [`${pgSchema}.orders`]: ['id'] } },
      filters: { [pgConfigName]: { [`${pgSchema}.orders`]: { id: { between: [5] } } } },
    });
    expect(done).toMatchObject({ status: 'failed' });
    expect(done.metadata.error).toBe(
      `engine extraction: engine: [validation] invalid filter: filter on '${pgConfigName}.${pgSchema}.orders.id': operator 'between' needs exactly 2 values, got 1`,
    );
  });
});
