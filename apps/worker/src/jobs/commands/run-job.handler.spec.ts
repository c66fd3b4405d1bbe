import { createDecipheriv, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryConnectorFactory, MemoryConnectorRegistry, TemplateConnector } from '@fetcher/engine/memory';
import { Logger } from '@nestjs/common';
import type { CommandBus } from '@nestjs/cqrs';
import { envelopeHeaders, jobIdOfBody, KeyRing } from '@fetcher/platform';
import { withFaults } from '@fetcher/platform/testing';
import type { ConsumeMessage } from 'amqplib';
import { Registry } from 'prom-client';
import { WorkerMetrics } from '../../metrics/worker-metrics';
import { TerminalWriteRefused } from '../../ports/job-store.port';
import { FakeClock } from '../../testing/fake-clock';
import { InMemoryResultStore } from '../../testing/in-memory-result-store';
import { RecordingEventPublisher } from '../../testing/recording-event-publisher';
import { MemoryConnectionResolver } from '../../adapters/embedded/connection-resolver.memory';
import { storedConnection } from '../../testing/stored-connection';
import { TestJobStore } from '../../testing/test-job-store';
import { JobOutbox } from '../job-outbox';
import { JobRequestedController } from '../job-requested.controller';
import type { JobSettings } from '../job-settings';
import { MessageVerifier } from '../message-verifier';
import type { RetryPolicy } from '../redelivery';
import { RunJobCommand } from './run-job.command';
import { JobCancelRegistry } from '../cancel/job-cancel-registry';
import { ConnectorCache } from '../connector-cache';
import { RunJobHandler } from './run-job.handler';

const ROWS = { users: [{ id: 1n, name: 'Ada' }, { id: 2n, name: 'Grace' }], invoices: [{ id: 7n, total: '99.00' }] };

describe(RunJobHandler.name, () => {
  let spoolDir: string;
  beforeEach(() => (spoolDir = mkdtempSync(join(tmpdir(), 'run-job-spec-'))));
  afterEach(() => rmSync(spoolDir, { recursive: true, force: true }));

  const setup = (behavior: ConstructorParameters<typeof TemplateConnector>[0] = { rows: ROWS }, progressIntervalMs = 60_000, cache: ConnectorCache | null = null) => {
    const ring = KeyRing.create({ current: { version: '1', key: randomBytes(32) } });
    const clock = new FakeClock('2026-03-01T10:00:00Z');
    const jobs = withFaults(new TestJobStore());
    const results = new InMemoryResultStore();
    const publisher = new RecordingEventPublisher();
    const template = new TemplateConnector(behavior);
    const factory = new MemoryConnectorFactory(template);
    const registry = new MemoryConnectorRegistry().register('memory', factory);
    // The embedded resolver over the connections the Manager stored, and one operator-configured datasource.
    const stored = [
      storedConnection(ring, 'crm', { type: 'memory', productName: 'reporter', password: 's3cret-pass' }),
      // Another product's connection: no job of `reporter` may read it.
      storedConnection(ring, 'billing', { type: 'memory', productName: 'ledger' }),
    ];
    const resolver = new MemoryConnectionResolver(
      { live: () => stored },
      ring,
      [{ configName: 'shared', type: 'memory', host: 'h', port: 1, databaseName: 'shared', userName: 'u', metadata: {} }],
    );
    const sleeps: number[] = [];
    // Every sleep of the handler advances the fake clock at once; a test may put another sleep in.
    const sleeper = {
      fn: (ms: number): Promise<void> => {
        sleeps.push(ms);
        clock.advance(ms);
        return Promise.resolve();
      },
    };
    const settings: JobSettings = {
      leaseTtlMs: 60_000,
      leaseOwner: 'test:1:abc',
      spoolDir,
      objectKeyPrefix: 'results/',
      workQueue: 'q',
      eventsExchange: 'fetcher.job.events',
      eventSource: '//lerian.fetcher/worker',
      upload: { partBytes: 1 << 20, maxInFlight: 4, sleep: (ms) => sleeper.fn(ms) },
      ring,
      progressIntervalMs,
    };
    const metrics = new WorkerMetrics(new Registry());
    const outbox = new JobOutbox(jobs, publisher, settings, clock);
    const cancels = new JobCancelRegistry();
    const sut = new RunJobHandler(jobs, resolver, results, registry, settings, clock, outbox, metrics, cancels, null, cache);
    return { sut, cancels, jobs, results, publisher, template, factory, resolver, ring, clock, metrics, sleeps, sleeper, settings };
  };

  /** These deliveries never fail on infrastructure, so no retry is ever due. */
  const NO_RETRY: RetryPolicy = { maxRetries: 0, baseDelayMs: 0, maxDelayMs: 0, sleep: () => Promise.resolve() };

  /** The handler behind the real controller: a signed delivery of `body` is answered, counted and logged as in production. */
  const deliver = async (world: ReturnType<typeof setup>, body: Buffer) => {
    const commands = { execute: (command: RunJobCommand) => world.sut.execute(command) } as unknown as CommandBus;
    const controller = new JobRequestedController(new MessageVerifier(world.settings, { allowLegacyBodySignature: false }, world.clock), commands, world.metrics, NO_RETRY);
    const headers = envelopeHeaders({ key: world.ring.current().internalHmac, tenantId: '', exchange: '', routingKey: 'q', body, jobId: jobIdOfBody(body), now: world.clock.now() });
    const outcome = await controller.onJobRequested({ content: body, fields: { exchange: '', routingKey: 'q' }, properties: { headers } } as unknown as ConsumeMessage);
    const rejected = Object.fromEntries((await world.metrics.messagesRejected.get()).values.map((v) => [v.labels.reason, v.value]));
    return { outcome, rejected };
  };

  const message = (jobId: string, extra: Record<string, unknown> = {}) =>
    new RunJobCommand({
      body: Buffer.from(JSON.stringify({ createdAt: '2026-03-01T09:59:59Z', jobId, mappedFields: { crm: { users: ['id', 'name'] } }, metadata: { source: 'reporter' }, ...extra })),
      headers: { jobId },
      tenantHeader: '',
      requestId: 'req-1',
      receivedAt: new Date(),
    });

  it('runs a pending job: encrypted object, one terminal write, one signed event, ack', async () => {
    const { sut, jobs, results, publisher, ring, factory } = setup();
    const jobId = randomUUID();
    jobs.add(jobId);
    expect(await sut.execute(message(jobId))).toEqual({ kind: 'handled' });

    const object = results.objects.get(`results/external-data/${jobId}.json`) as Buffer;
    const raw = Buffer.from(object.toString('latin1'), 'base64');
    const keys = ring.current();
    const decipher = createDecipheriv('aes-256-gcm', keys.storage, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    const plaintext = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
    expect(plaintext.toString()).toBe('{"crm":{"users":[{"id":1,"name":"Ada"},{"id":2,"name":"Grace"}]}}');
    const hmac = createHmac('sha256', keys.externalHmac).update(plaintext).digest('hex');

    expect(jobs.terminalWrites).toHaveLength(1);
    expect(jobs.terminalWrites[0].write).toMatchObject({
      status: 'completed', resultPath: `external-data/${jobId}.json`, resultHmac: hmac,
      resultStats: { sizeBytes: plaintext.length, rowCount: 2, rowCounts: { crm: 2 } },
    });
    expect(publisher.ids()).toEqual([`fetcher.job.completed.${jobId}`]);
    const payload = JSON.parse(publisher.published[0].body.toString());
    expect(Object.keys(payload)).toEqual(['jobId', 'metadata', 'status', 'result', 'completedAt']);
    expect(payload.result).toMatchObject({ path: `external-data/${jobId}.json`, rowCount: 2, sizeBytes: plaintext.length, hmac });
    expect(jobs.jobs.get(jobId)?.metadata.terminalEventPending).toBeUndefined();
    expect(factory.buildCount).toBe(1); // one connector for planning and execution
    expect(readdirSync(spoolDir)).toEqual([]);
  });

  describe('the lease is asked for before the job is read', () => {
    /** Records the job store calls a delivery makes; `refuse` acquires that many times refuse, whatever the job. */
    const recordCalls = (world: ReturnType<typeof setup>, refuse = 0) => {
      const calls: string[] = [];
      const find = world.jobs.find.bind(world.jobs);
      const acquire = world.jobs.acquire.bind(world.jobs);
      world.jobs.find = (id) => (calls.push('find'), find(id));
      world.jobs.acquire = (id, lease, now) => (calls.push('acquire'), refuse-- > 0 ? Promise.resolve(undefined) : acquire(id, lease, now));
      return calls;
    };

    it('runs a pending job after one store call, without reading it first', async () => {
      const world = setup();
      const calls = recordCalls(world);
      const jobId = randomUUID();
      world.jobs.add(jobId);
      expect(await world.sut.execute(message(jobId))).toEqual({ kind: 'handled' });
      expect(calls).toEqual(['acquire']);
      expect(world.jobs.jobs.get(jobId)?.status).toBe('completed');
      expect((await world.metrics.leaseTakeovers.get()).values[0]?.value ?? 0).toBe(0);
    });

    it('reads the job only when the lease is refused, and then does what the policy says', async () => {
      const world = setup();
      const calls = recordCalls(world);
      const jobId = randomUUID();
      world.jobs.add(jobId, 'completed');
      expect(await world.sut.execute(message(jobId))).toEqual({ kind: 'handled' });
      expect(calls).toEqual(['acquire', 'find']);
      expect(world.jobs.terminalWrites).toEqual([]);
    });

    it('tries once more when the job read after a refused lease is free to run (it changed in between)', async () => {
      const world = setup();
      const calls = recordCalls(world, 1);
      const jobId = randomUUID();
      world.jobs.add(jobId);
      expect(await world.sut.execute(message(jobId))).toEqual({ kind: 'handled' });
      expect(calls).toEqual(['acquire', 'find', 'acquire']);
      expect(world.jobs.jobs.get(jobId)?.status).toBe('completed');
    });

    it('gives the delivery up, handled, when the lease is refused twice (lost races)', async () => {
      const world = setup();
      const calls = recordCalls(world, 2);
      const jobId = randomUUID();
      world.jobs.add(jobId);
      expect(await world.sut.execute(message(jobId))).toEqual({ kind: 'handled' });
      expect(calls).toEqual(['acquire', 'find', 'acquire', 'find']);
      expect(world.jobs.jobs.get(jobId)?.status).toBe('pending');
      expect(world.factory.buildCount).toBe(0);
    });

    it('never runs a job whose stored event is inconsistent with it (an event pending on a pending job)', async () => {
      const world = setup();
      const jobId = randomUUID();
      world.jobs.add(jobId, 'pending', { metadata: { source: 'reporter', terminalEventPending: true, terminalEventStatus: 'completed', terminalEventPayload: '{"e":1}' } });
      const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      try {
        expect(await world.sut.execute(message(jobId))).toEqual({ kind: 'handled' });
        expect(error).toHaveBeenCalledWith(`job ${jobId}: stored terminal event is inconsistent; not sent`);
      } finally {
        error.mockRestore();
      }
      expect(world.jobs.jobs.get(jobId)?.status).toBe('pending');
      expect(world.factory.buildCount).toBe(0);
      expect(world.publisher.published).toEqual([]);
    });
  });

  const plaintextOf = (results: InMemoryResultStore, ring: KeyRing, jobId: string): string => {
    const raw = Buffer.from((results.objects.get(`results/external-data/${jobId}.json`) as Buffer).toString('latin1'), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', ring.current().storage, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString();
  };

  describe('runs what the stored job says, not what the message body says', () => {
    it('extracts the stored mappedFields when the body names another product\'s connection', async () => {
      const { sut, jobs, results, ring, publisher } = setup();
      const jobId = randomUUID();
      jobs.add(jobId);
      const swapped = message(jobId, { mappedFields: { billing: { invoices: ['id', 'total'] } }, metadata: { source: 'ledger' } });
      expect(await sut.execute(swapped)).toEqual({ kind: 'handled' });
      expect(plaintextOf(results, ring, jobId)).toBe('{"crm":{"users":[{"id":1,"name":"Ada"},{"id":2,"name":"Grace"}]}}');
      expect(JSON.parse(publisher.published[0].body.toString()).metadata).toEqual({ source: 'reporter' });
    });

    it('applies the stored filters, not the body\'s', async () => {
      const { sut, jobs, template } = setup();
      const jobId = randomUUID();
      jobs.add(jobId, 'pending', { filters: { crm: { users: { id: { eq: [2] } } } } });
      await sut.execute(message(jobId, { filters: { crm: { users: { id: { eq: [1] } } } } }));
      expect(template.queries.map((q) => q.filters)).toEqual([{ users: { id: { eq: [2] } } }]);
    });

    it('fails a job whose stored connection belongs to another product, dialling nothing', async () => {
      const { sut, jobs, factory, publisher } = setup();
      const jobId = randomUUID();
      jobs.add(jobId, 'pending', { mappedFields: { billing: { invoices: ['id'] } } });
      expect(await sut.execute(message(jobId))).toEqual({ kind: 'handled' });
      const error = "FET-1016: Connection 'billing' does not belong to the product identified by source 'reporter'";
      expect(jobs.jobs.get(jobId)).toMatchObject({ status: 'failed', metadata: expect.objectContaining({ error }) });
      expect(factory.buildCount).toBe(0);
      expect(JSON.parse(publisher.published[0].body.toString())).toEqual({ jobId, metadata: { source: 'reporter', error: { message: error } }, status: 'failed' });
    });

    it('lets every product use an internal datasource', async () => {
      const { sut, jobs, results, ring } = setup();
      const jobId = randomUUID();
      jobs.add(jobId, 'pending', { mappedFields: { shared: { invoices: ['id'] } } });
      expect(await sut.execute(message(jobId))).toEqual({ kind: 'handled' });
      expect(plaintextOf(results, ring, jobId)).toBe('{"shared":{"invoices":[{"id":7}]}}');
    });

    it('fails a stored job without a request (FET-0052) and acks', async () => {
      const { sut, jobs } = setup();
      const jobId = randomUUID();
      jobs.add(jobId, 'pending', { mappedFields: undefined });
      expect(await sut.execute(message(jobId))).toEqual({ kind: 'handled' });
      expect(jobs.jobs.get(jobId)?.metadata.error).toBe('FET-0052: mappedFields cannot be empty');
    });
  });

  it('writes progress under its lease while the extraction runs', async () => {
    const seen: { store?: TestJobStore } = {};
    const { sut, jobs } = setup(
      {
        rows: ROWS,
        // Hold the extraction open until the progress timer has written once (bounded).
        afterQuery: async () => {
          for (let i = 0; i < 2_000 && (seen.store?.progressWrites.length ?? 0) === 0; i++) await new Promise((resolve) => setImmediate(resolve));
        },
      },
      1,
    );
    seen.store = jobs;
    const jobId = randomUUID();
    jobs.add(jobId);
    await sut.execute(message(jobId));
    expect(jobs.progressWrites.length).toBeGreaterThan(0);
    expect(jobs.progressWrites[0]).toMatchObject({ tablesDone: 0, rowsSoFar: 0 });
  });

  it('acks a duplicate delivery of a finished job without running it again', async () => {
    const { sut, jobs, publisher } = setup();
    const jobId = randomUUID();
    jobs.add(jobId);
    await sut.execute(message(jobId));
    await sut.execute(message(jobId));
    await sut.execute(message(jobId));
    expect(jobs.terminalWrites).toHaveLength(1);
    expect(publisher.published).toHaveLength(1);
  });

  it('re-emits a stored event whose marker is still set, with the same id', async () => {
    const { sut, jobs, publisher } = setup();
    const jobId = randomUUID();
    jobs.add(jobId);
    publisher.failWith = new Error('broker down');
    expect(await sut.execute(message(jobId))).toEqual({ kind: 'refused', reason: 'event_publish' });
    expect(jobs.jobs.get(jobId)?.metadata.terminalEventPending).toBe(true);
    publisher.failWith = undefined;
    expect(await sut.execute(message(jobId))).toEqual({ kind: 'handled' });
    expect(publisher.ids()).toEqual([`fetcher.job.completed.${jobId}`]);
    expect(jobs.terminalWrites).toHaveLength(1);
  });

  it('dead-letters a message for a job that does not exist (FET-0067)', async () => {
    const { sut } = setup();
    expect(await sut.execute(message(randomUUID()))).toEqual({ kind: 'refused', reason: 'job_not_found' });
  });

  it('fails the job with the engine text, redacts secrets, emits job.failed and dead-letters (engine errors are retryable)', async () => {
    const { sut, jobs, publisher } = setup({ rows: ROWS, queryErr: new Error('connection to 10.0.0.5:5432 refused for s3cret-pass') });
    const jobId = randomUUID();
    jobs.add(jobId);
    expect(await sut.execute(message(jobId))).toEqual({ kind: 'refused', reason: 'engine_unavailable' });
    expect(jobs.jobs.get(jobId)?.metadata.error).toBe('engine extraction: engine: [unavailable] failed to query datasource');
    const payload = JSON.parse(publisher.published[0].body.toString());
    expect(payload).toEqual({ jobId, metadata: { source: 'reporter', error: { message: 'engine extraction: engine: [unavailable] failed to query datasource' } }, status: 'failed' });
    expect(publisher.ids()).toEqual([`fetcher.job.failed.${jobId}`]);
  });

  it('fails an unknown datasource as not_found', async () => {
    const { sut, jobs } = setup();
    const jobId = randomUUID();
    jobs.add(jobId, 'pending', { mappedFields: { crm: { users: ['id'] }, other: { t: ['a'] } } });
    await sut.execute(message(jobId));
    expect(jobs.jobs.get(jobId)?.metadata.error).toBe('engine extraction: engine: [not_found] extraction references an unknown datasource connection: other');
  });

  it('fails a job on a missing table or field naming the datasource, table and field, and logs it at the default level without secrets', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const { sut, jobs } = setup();
      const jobId = randomUUID();
      jobs.add(jobId, 'pending', { mappedFields: { crm: { users: ['id', 'colour'], orders: ['id'] } } });
      await sut.execute(message(jobId));
      const text =
        'engine extraction: engine: [validation] extraction request failed schema validation: ' +
        'table not found in datasource schema: crm.orders; field not found in table schema: crm.users.colour';
      expect(jobs.jobs.get(jobId)?.metadata.error).toBe(text);
      expect(warn).toHaveBeenCalledWith(`job ${jobId} failed: ${text}`);
      expect(JSON.stringify(warn.mock.calls)).not.toContain('s3cret-pass');
    } finally {
      warn.mockRestore();
    }
  });

  it('fails a job whose names resolve to nothing, and acks', async () => {
    const { sut, jobs } = setup();
    const jobId = randomUUID();
    jobs.add(jobId, 'pending', { mappedFields: { nobody: { t: ['a'] } } });
    expect(await sut.execute(message(jobId))).toEqual({ kind: 'handled' });
    expect(jobs.jobs.get(jobId)?.metadata.error).toBe('No connections found for config names');
  });

  it.each([
    ['null', 'FET-0050: message payload is null'],
    ['{"jobId":"not-a-uuid","mappedFields":{"a":{"t":["x"]}}}', 'FET-0051: message has no valid job id'],
    ['{"jobId":"%ID%","mappedFields":{}}', 'FET-0052: mappedFields cannot be empty'],
    ['{"jobId":"%ID%","mappedFields":{"a":{}}}', 'FET-0053: datasource has no tables'],
    ['{"jobId":"%ID%","mappedFields":', 'message body is not a valid job message'],
  ])('fails the pending job named by a malformed body %s, with its stored metadata, and acks', async (body, error) => {
    const { sut, jobs, publisher } = setup();
    const jobId = randomUUID();
    jobs.add(jobId, 'pending', { metadata: { source: 'reporter', requestedBy: 'ops' } });
    const outcome = await sut.execute(
      new RunJobCommand({ body: Buffer.from(body.replace('%ID%', jobId)), headers: { jobId }, tenantHeader: '', requestId: 'r', receivedAt: new Date() }),
    );
    expect(outcome).toEqual({ kind: 'handled' });
    expect(jobs.jobs.get(jobId)).toMatchObject({ status: 'failed', metadata: expect.objectContaining({ error }) });
    expect(JSON.parse(publisher.published[0].body.toString())).toEqual({ jobId, metadata: { source: 'reporter', requestedBy: 'ops', error: { message: error } }, status: 'failed' });
  });

  describe('a signed malformed body that names no existing job', () => {
    const unknown = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
    it.each([
      ['invalid JSON', Buffer.from(`{"jobId":"${unknown}","mappedFields":`), 'malformed_json'],
      ['null', Buffer.from('null'), 'malformed_null'],
      ['an array', Buffer.from(`[{"jobId":"${unknown}"}]`), 'malformed_json'],
      ['the nil UUID', Buffer.from('{"jobId":"00000000-0000-0000-0000-000000000000","mappedFields":{"a":{"t":["x"]}}}'), 'malformed_job_id'],
      ['a non-UUID jobId', Buffer.from('{"jobId":"job-1","mappedFields":{"a":{"t":["x"]}}}'), 'malformed_job_id'],
      ['{}', Buffer.from('{}'), 'malformed_job_id'],
      ['a string mappedFields', Buffer.from(`{"jobId":"${unknown}","mappedFields":"a"}`), 'malformed_json'],
      ['invalid UTF-8', Buffer.concat([Buffer.from(`{"jobId":"${unknown}","mappedFields":{"a`), Buffer.from([0xff, 0xfe]), Buffer.from('":{"t":["x"]}}}')]), 'malformed_json'],
    ])('%s is dead-lettered, counted and logged without the body', async (_name, body, reason) => {
      const world = setup();
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      try {
        const { outcome, rejected } = await deliver(world, body);
        expect(outcome).toEqual({ kind: 'refused', reason });
        expect(rejected).toEqual({ [reason]: 1 });
        const lines = warn.mock.calls.map((call) => String(call[0]));
        expect(lines).toEqual([expect.stringContaining(`message rejected (${reason})`)]);
        expect(lines[0]).not.toContain('mappedFields');
        expect(world.publisher.published).toEqual([]);
      } finally {
        warn.mockRestore();
      }
    });

    it('is dead-lettered when the job it names has already started', async () => {
      const world = setup();
      const jobId = randomUUID();
      world.jobs.add(jobId, 'completed');
      const { outcome, rejected } = await deliver(world, Buffer.from(`{"jobId":"${jobId}","mappedFields":{}}`));
      expect(outcome).toEqual({ kind: 'refused', reason: 'malformed_mapped_fields' });
      expect(rejected).toEqual({ malformed_mapped_fields: 1 });
      expect(world.jobs.jobs.get(jobId)?.status).toBe('completed');
    });
  });

  it('takes over a processing job whose lease expired, and counts it', async () => {
    const { sut, jobs, clock, metrics } = setup();
    const jobId = randomUUID();
    jobs.add(jobId, 'processing', { lease: { token: 'old', owner: 'dead:1:x', expiresAt: new Date(clock.now().getTime() - 1) } });
    expect(await sut.execute(message(jobId))).toEqual({ kind: 'handled' });
    expect(jobs.jobs.get(jobId)?.status).toBe('completed');
    expect((await metrics.leaseTakeovers.get()).values[0].value).toBe(1);
  });

  describe('a delivery of a job whose live lease another Worker holds', () => {
    const leased = (world: ReturnType<typeof setup>, owner = 'other:1:x') => {
      const jobId = randomUUID();
      const job = world.jobs.add(jobId, 'processing', { lease: { token: 'live', owner, expiresAt: new Date(world.clock.now().getTime() + 60_000) } });
      return { jobId, job };
    };

    it('is acked at once, holding no run slot while the owner works', async () => {
      const world = setup();
      const waits: number[] = [];
      world.sleeper.fn = (ms) => {
        waits.push(ms);
        return new Promise<void>(() => undefined); // the owner never finishes during this test
      };
      const { jobId } = leased(world);
      expect(await world.sut.execute(message(jobId))).toEqual({ kind: 'handled' });
      expect(world.jobs.jobs.get(jobId)?.status).toBe('processing');
      expect(world.jobs.terminalWrites).toHaveLength(0);
    }, 2_000);

    it('is taken over, outside any delivery, once its owner stops renewing (the owner died)', async () => {
      const world = setup();
      const { jobId } = leased(world);
      expect(await world.sut.execute(message(jobId))).toEqual({ kind: 'handled' });
      expect(world.jobs.jobs.get(jobId)?.status).toBe('processing');
      await world.sut.watchesSettled();
      expect(world.jobs.jobs.get(jobId)?.status).toBe('completed');
      expect(world.publisher.ids()).toEqual([`fetcher.job.completed.${jobId}`]);
      expect((await world.metrics.leaseTakeovers.get()).values[0].value).toBe(1);
      expect(world.sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThan(60_000);
    });

    it('stops watching once its owner finishes', async () => {
      const world = setup();
      const { jobId, job } = leased(world);
      const sleep = world.sleeper.fn;
      world.sleeper.fn = async (ms) => {
        await sleep(ms);
        if (world.sleeps.length === 2) job.status = 'completed';
      };
      expect(await world.sut.execute(message(jobId))).toEqual({ kind: 'handled' });
      await world.sut.watchesSettled();
      expect(world.sleeps).toEqual([5000, 5000]);
      expect(world.jobs.terminalWrites).toHaveLength(0);
    });

    it('stops watching after TTL + 10 s while the owner keeps renewing', async () => {
      const world = setup();
      const { jobId, job } = leased(world);
      const find = world.jobs.find.bind(world.jobs);
      world.jobs.find = async (id) => {
        job.lease = { token: 'live', owner: 'other:1:x', expiresAt: new Date(world.clock.now().getTime() + 60_000) };
        return find(id);
      };
      expect(await world.sut.execute(message(jobId))).toEqual({ kind: 'handled' });
      await world.sut.watchesSettled();
      expect(world.sleeps.reduce((a, b) => a + b, 0)).toBe(75_000);
      expect(job.status).toBe('processing');
    });

    it('is acked at once, without a watch, when this Worker holds the lease itself', async () => {
      const world = setup();
      const { jobId } = leased(world, world.settings.leaseOwner);
      expect(await world.sut.execute(message(jobId))).toEqual({ kind: 'handled' });
      await world.sut.watchesSettled();
      expect(world.sleeps).toEqual([]);
    });

    it('is watched once however often it is delivered', async () => {
      const world = setup();
      const waits: number[] = [];
      world.sleeper.fn = (ms) => {
        waits.push(ms);
        return new Promise<void>(() => undefined);
      };
      const { jobId } = leased(world);
      for (let i = 0; i < 3; i++) expect(await world.sut.execute(message(jobId))).toEqual({ kind: 'handled' });
      expect(waits).toEqual([5000]);
    }, 2_000);
  });

  describe('a terminal write the database refuses as written', () => {
    // Metadata too large to be stored twice: the document would pass the database's size limit.
    const bulky = { source: 'reporter', note: 'x'.repeat(50_000) };
    const tooLarge = (write: { eventPayload: string }) => write.eventPayload.length > 10_000;
    const bare = 'process failed: the job outcome could not be stored';

    it('still fails the job at once when the failure write is refused, with a bare record and event', async () => {
      const world = setup({ rows: ROWS, queryErr: new Error('query failed') });
      const jobId = randomUUID();
      world.jobs.add(jobId, 'pending', { metadata: bulky });
      world.jobs.faults.failWhen('writeTerminal', (_id, _guard, write) => tooLarge(write), () => new TerminalWriteRefused());
      expect(await world.sut.execute(message(jobId))).toEqual({ kind: 'refused', reason: 'terminal_write_refused' });
      expect(world.jobs.jobs.get(jobId)).toMatchObject({ status: 'failed', metadata: expect.objectContaining({ error: bare }) });
      expect(world.jobs.jobs.get(jobId)?.lease).toBeUndefined();
      expect(JSON.parse(world.publisher.published[0].body.toString())).toEqual({ jobId, metadata: { source: 'reporter', error: { message: bare } }, status: 'failed' });
      expect(world.publisher.ids()).toEqual([`fetcher.job.failed.${jobId}`]);
    });

    it('fails the job when the completed write is refused', async () => {
      const world = setup();
      const jobId = randomUUID();
      world.jobs.add(jobId, 'pending', { metadata: bulky });
      world.jobs.faults.failWhen('writeTerminal', (_id, _guard, write) => tooLarge(write), () => new TerminalWriteRefused());
      expect(await world.sut.execute(message(jobId))).toEqual({ kind: 'refused', reason: 'terminal_write_refused' });
      expect(world.jobs.jobs.get(jobId)).toMatchObject({ status: 'failed', metadata: expect.objectContaining({ error: bare }) });
      expect(world.publisher.ids()).toEqual([`fetcher.job.failed.${jobId}`]);
    });

    it('leaves the job to the reaper only when even the bare write fails', async () => {
      const world = setup({ rows: ROWS, queryErr: new Error('query failed') });
      const jobId = randomUUID();
      world.jobs.add(jobId);
      world.jobs.faults.failAlways('writeTerminal', () => new TerminalWriteRefused());
      expect(await world.sut.execute(message(jobId))).toEqual({ kind: 'refused', reason: 'terminal_write' });
      expect(world.jobs.jobs.get(jobId)?.status).toBe('processing');
    });
  });

  it('makes no terminal write and sends no event when another worker took the lease', async () => {
    const { sut, jobs, publisher } = setup({
      rows: ROWS,
      afterQuery: async () => {
        const [job] = jobs.jobs.values();
        job.lease = { token: 'thief', owner: 'other', expiresAt: new Date('2030-01-01') };
      },
    });
    const jobId = randomUUID();
    jobs.add(jobId);
    const outcome = await sut.execute(message(jobId));
    expect(outcome).toEqual({ kind: 'handled' });
    expect(jobs.terminalWrites).toHaveLength(0);
    expect(publisher.published).toHaveLength(0);
  });

  it('fails with a business code when the tenant id holds a slash, and acks', async () => {
    const { sut, jobs } = setup();
    const jobId = randomUUID();
    jobs.add(jobId);
    const cmd = message(jobId);
    const outcome = await sut.execute(new RunJobCommand({ ...cmd.delivery, tenantHeader: 'a/b' }));
    expect(outcome).toEqual({ kind: 'handled' });
    expect(jobs.jobs.get(jobId)?.metadata.error).toBe('FET-0066: tenant id is not valid in an object key');
  });

  it('puts the tenant in the object key when the message names one', async () => {
    const { sut, jobs, results } = setup();
    const jobId = randomUUID();
    jobs.add(jobId);
    const cmd = message(jobId);
    await sut.execute(new RunJobCommand({ ...cmd.delivery, tenantHeader: 'acme' }));
    expect([...results.objects.keys()]).toEqual([`results/acme/external-data/${jobId}.json`]);
    expect(jobs.terminalWrites[0].write.resultPath).toBe(`acme/external-data/${jobId}.json`);
  });

  it('fails the job when storage keeps failing: no object, no spool file, dead-letter', async () => {
    const { sut, jobs, results } = setup();
    results.failNext('putObject', 3);
    const jobId = randomUUID();
    jobs.add(jobId);
    expect(await sut.execute(message(jobId))).toEqual({ kind: 'refused', reason: 'engine_unavailable' });
    expect(jobs.jobs.get(jobId)?.metadata.error).toBe('engine extraction: engine: [unavailable] failed to persist extraction result: object storage unavailable');
    expect(results.objects.size).toBe(0);
    expect(readdirSync(spoolDir)).toEqual([]);
    expect(existsSync(spoolDir)).toBe(true);
  });


  describe('cancel', () => {
    const ASKED = new Date('2026-03-01T09:59:58Z');

    it('acks the delivery of a job canceled while pending, without running it', async () => {
      const { sut, jobs, publisher, factory } = setup();
      const jobId = randomUUID();
      jobs.add(jobId, 'canceled');
      expect(await sut.execute(message(jobId))).toEqual({ kind: 'handled' });
      expect(factory.buildCount).toBe(0);
      expect(jobs.terminalWrites).toEqual([]);
      expect(publisher.published).toEqual([]);
    });

    it('stops a running extraction: connections closed, no object, no spool file, canceled under the lease with its progress and event', async () => {
      const jobId = randomUUID();
      // The cancel arrives while the query runs (the cursor is open), as a control message would.
      const world: ReturnType<typeof setup> = setup({ rows: ROWS, afterQuery: () => void world.cancels.request(jobId, ASKED) });
      const { sut, jobs, results, publisher, template, metrics, clock } = world;
      jobs.add(jobId);
      expect(await sut.execute(message(jobId))).toEqual({ kind: 'handled' });

      expect(jobs.terminalWrites).toHaveLength(1);
      expect(jobs.terminalWrites[0].write).toMatchObject({ status: 'canceled', progress: { tablesDone: 0, rowsSoFar: 0 } });
      expect(jobs.jobs.get(jobId)).toMatchObject({ status: 'canceled' });
      expect(jobs.jobs.get(jobId)?.lease).toBeUndefined();
      expect(results.objects.size).toBe(0);
      expect(results.uploads.size).toBe(0);
      expect(readdirSync(spoolDir)).toEqual([]);
      expect(template.closeCount).toBeGreaterThan(0);
      expect(publisher.ids()).toEqual([`fetcher.job.canceled.${jobId}`]);
      expect(publisher.published[0].routingKey).toBe('job.canceled');
      const payload = JSON.parse(publisher.published[0].body.toString());
      expect(payload).toMatchObject({ jobId, status: 'canceled', metadata: { source: 'reporter' }, progress: { tablesDone: 0, rowsSoFar: 0 } });
      expect(payload.canceledAt).toBe(clock.now().toISOString());
      expect((await metrics.jobsCanceled.get()).values[0].value).toBe(1);
      expect((await metrics.cancelLatency.get()).values.find((v) => v.metricName === 'fetcher_worker_cancel_latency_seconds_count')?.value).toBe(1);
    });

    it('ignores a cancel that arrives after the commit point: the job completes, one terminal state, one event', async () => {
      const { sut, jobs, cancels, publisher, results } = setup();
      const jobId = randomUUID();
      jobs.add(jobId);
      const write = jobs.writeTerminal.bind(jobs);
      jobs.writeTerminal = (id, guard, w) => {
        cancels.request(id, ASKED); // the object is stored; the terminal write is under way
        return write(id, guard, w);
      };
      expect(await sut.execute(message(jobId))).toEqual({ kind: 'handled' });
      expect(jobs.terminalWrites.map((t) => t.write.status)).toEqual(['completed']);
      expect(publisher.ids()).toEqual([`fetcher.job.completed.${jobId}`]);
      expect(results.objects.size).toBe(1);
    });

    it('takes over a job whose owner died after a cancel was asked, and records canceled without running it', async () => {
      const { sut, jobs, publisher, factory, clock } = setup();
      const jobId = randomUUID();
      jobs.add(jobId, 'processing', { lease: { token: 'old', owner: 'dead', expiresAt: new Date(clock.now().getTime() - 1) }, cancelRequestedAt: ASKED });
      expect(await sut.execute(message(jobId))).toEqual({ kind: 'handled' });
      expect(factory.buildCount).toBe(0);
      expect(jobs.terminalWrites.map((t) => t.write.status)).toEqual(['canceled']);
      expect(publisher.ids()).toEqual([`fetcher.job.canceled.${jobId}`]);
    });
  });

  describe('connection reuse', () => {
    const reuse = () => new ConnectorCache({ idleMs: 30_000, maxIdle: 8 }, () => Promise.resolve());
    const run = async (world: ReturnType<typeof setup>) => {
      const jobId = randomUUID();
      world.jobs.add(jobId);
      const outcome = await world.sut.execute(message(jobId));
      return { jobId, outcome, status: world.jobs.jobs.get(jobId)?.status };
    };

    it('serves the next job of the same connection with the connector the last one left, pinged first', async () => {
      const cache = reuse();
      const world = setup({ rows: ROWS }, 60_000, cache);
      expect((await run(world)).status).toBe('completed');
      expect((await run(world)).status).toBe('completed');
      expect(world.factory.buildCount).toBe(1);
      const [connector] = world.factory.built;
      expect(connector.closeCount).toBe(0);
      expect(connector.discoverCalls).toBe(2); // the catalogue is read again for every job
      expect(connector.testCalls).toBeGreaterThanOrEqual(2);
      expect(cache.size).toBe(1);
      await cache.close();
      expect(connector.closeCount).toBe(1);
    });

    it('closes the connector of a failed job instead of keeping it; the next job dials afresh', async () => {
      const cache = reuse();
      const world = setup({ rows: ROWS }, 60_000, cache);
      await run(world);
      const [first] = world.factory.built;
      first.behavior.queryErr = new Error('server closed the connection unexpectedly');
      expect((await run(world)).status).toBe('failed');
      expect(first.closeCount).toBe(1);
      expect(cache.size).toBe(0);
      expect((await run(world)).status).toBe('completed');
      expect(world.factory.buildCount).toBe(2);
    });

    it('closes the connector of a canceled job (the aborted query ends with it)', async () => {
      const cache = reuse();
      const box: { world?: ReturnType<typeof setup>; jobId?: string } = {};
      const world = setup({ rows: ROWS, afterQuery: () => void box.world?.cancels.request(box.jobId!, new Date('2026-03-01T09:59:58Z')) }, 60_000, cache);
      box.world = world;
      box.jobId = randomUUID();
      world.jobs.add(box.jobId);
      await world.sut.execute(message(box.jobId));
      expect(world.jobs.jobs.get(box.jobId)?.status).toBe('canceled');
      expect(world.factory.built[0].closeCount).toBe(1);
      expect(cache.size).toBe(0);
    });

    it('dials again when reuse is off (idle 0)', async () => {
      const world = setup({ rows: ROWS }, 60_000, new ConnectorCache({ idleMs: 0, maxIdle: 8 }, () => Promise.resolve()));
      await run(world);
      await run(world);
      expect(world.factory.buildCount).toBe(2);
      expect(world.factory.built.map((c) => c.closeCount)).toEqual([1, 1]);
    });
  });
});
