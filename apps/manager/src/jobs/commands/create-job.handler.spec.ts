import { randomBytes, randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { buildJobMessage } from '@fetcher/contracts';
import { createTenantContext, IncrementalText } from '@fetcher/engine';
import { KeyRing } from '@fetcher/platform';
import { withFaults } from '@fetcher/platform/testing';
import { EnvInternalDatasources } from '../../adapters/config/internal-datasources.env';
import { MemoryConnectionRepository } from '../../adapters/embedded/connection-repository.memory';
import type { ManagerConfig } from '../../config/manager.config';
import { ConnectionDirectory } from '../../connections/connection-directory';
import type { AppError } from '../../errors/app-error';
import type { StoredConnection } from '../../ports/connection-repository.port';
import { IncrementalRefused } from '../../ports/schema-check.port';
import { FakeClock } from '../../testing/fake-clock';
import { FakeConnectivityCheck, FakeSchemaCheck } from '../../testing/fake-connections';
import { RecordingJobPublisher } from '../../testing/recording-job-publisher';
import { TestJobRepository } from '../../testing/test-job-repository';
import { parseCreateJobRequest, type CreateJobRequest } from '../dto/create-job.request';
import { CreateJobCommand } from './create-job.command';
import { CreateJobHandler, DEDUP_WINDOW_MS } from './create-job.handler';
import { DispatchMarks } from './dispatch-marks';

const tenant = createTenantContext('default', 'req-1');

function aJobRequest(body: Record<string, unknown> = {}): CreateJobRequest {
  const parsed = parseCreateJobRequest({
    dataRequest: { mappedFields: { 'pg-main': { transactions: ['id', 'amount'] } } },
    metadata: { source: 'reporter' },
    ...body,
  });
  if (!parsed.ok) throw new Error('test request does not parse');
  return parsed.request;
}

function setup() {
  const jobs = withFaults(new TestJobRepository());
  const publisher = new RecordingJobPublisher();
  const keyRing = KeyRing.create({ current: { version: '1', key: randomBytes(32) } });
  // The resolver the Manager runs, over the embedded repository: a stored `pg-main` of the product
  // `reporter`, and the operator's `internal-ds`.
  const connections = MemoryConnectionRepository.inMemory();
  const internal = new EnvInternalDatasources([{ configName: 'internal-ds', type: 'POSTGRESQL', host: 'db.internal', port: 5432, databaseName: 'app', userName: 'app', metadata: {} }]);
  const resolver = withFaults(new ConnectionDirectory(internal, connections, { keyRing } as ManagerConfig));
  const pgMain: StoredConnection = {
    id: randomUUID(),
    productName: 'reporter',
    configName: 'pg-main',
    type: 'POSTGRESQL',
    host: 'db.example.com',
    port: 5432,
    databaseName: 'app',
    userName: 'app',
    passwordEncrypted: keyRing.encryptCredential('app-password').ciphertext,
    keyVersion: '1',
    createdAt: new Date('2025-12-01T00:00:00Z'),
    updatedAt: new Date('2025-12-01T00:00:00Z'),
  };
  const stored = connections.insert(tenant, pgMain);
  /** Replaces the stored `pg-main` with `changes`. */
  const changePgMain = async (changes: Partial<StoredConnection>) => {
    await stored;
    await connections.replace(tenant, { ...pgMain, ...changes });
  };
  const connectivity = new FakeConnectivityCheck();
  const clock = new FakeClock('2026-01-01T00:00:00Z');
  const schema = new FakeSchemaCheck();
  const marks = new DispatchMarks(jobs);
  const sut = new CreateJobHandler(jobs, publisher, resolver, connectivity, clock, schema, marks);
  const run = async (request: CreateJobRequest = aJobRequest()) => {
    await stored;
    return sut.execute(new CreateJobCommand(tenant, request));
  };
  return { jobs, publisher, resolver, connections, pgMain, changePgMain, connectivity, schema, clock, sut, run, marks };
}

async function failure(promise: Promise<unknown>): Promise<Pick<AppError, 'code' | 'title' | 'message' | 'fields' | 'category'>> {
  const error = (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as AppError | undefined;
  if (!error) throw new Error('expected a rejection');
  return { code: error.code, title: error.title, message: error.message, fields: error.fields, category: error.category };
}

describe(CreateJobHandler.name, () => {
  beforeAll(() => Logger.overrideLogger(false)); // the failure paths log on purpose
  it('stores a pending job, publishes it with the request id, then records the dispatch', async () => {
    const { run, jobs, publisher, clock, marks } = setup();
    const result = await run();
    expect(result.duplicate).toBe(false);
    expect(result.job).toMatchObject({ status: 'pending', createdAt: clock.now(), dispatchAttempts: 0, dispatchedAt: null });
    expect(publisher.published).toEqual([{ tenant, job: result.job, requestId: 'req-1' }]);
    await marks.settled();
    expect(jobs.all(tenant)).toMatchObject([{ id: result.job.id, status: 'pending', dispatchedAt: clock.now(), dispatchAttempts: 1 }]);
  });

  it('answers once the publish is confirmed, without waiting for the dispatch record, which lands after', async () => {
    const { run, jobs, clock, marks } = setup();
    let land!: () => void;
    const held = new Promise<void>((resolve) => (land = resolve));
    const mark = jobs.markDispatched.bind(jobs);
    jobs.markDispatched = async (...args) => {
      await held;
      return mark(...args);
    };
    const result = await run();
    expect(result.duplicate).toBe(false);
    expect(jobs.all(tenant)).toMatchObject([{ id: result.job.id, status: 'pending', dispatchedAt: null, dispatchAttempts: 0 }]);
    const stopped = marks.stop();
    land();
    await stopped;
    expect(jobs.all(tenant)).toMatchObject([{ id: result.job.id, dispatchedAt: clock.now(), dispatchAttempts: 1 }]);
  });

  it('returns the stored job for a repeated request and publishes once', async () => {
    const { run, publisher } = setup();
    const first = await run();
    const second = await run();
    expect(second).toEqual({ job: expect.objectContaining({ id: first.job.id }), duplicate: true });
    expect(publisher.published).toHaveLength(1);
  });

  it('treats different metadata as a different job', async () => {
    const { run, publisher } = setup();
    await run(aJobRequest({ metadata: { source: 'reporter', correlationId: 'a' } }));
    const second = await run(aJobRequest({ metadata: { source: 'reporter', correlationId: 'b' } }));
    expect(second.duplicate).toBe(false);
    expect(publisher.published).toHaveLength(2);
  });

  it('dedupes a completed job for five minutes from its creation, then creates a new one', async () => {
    const { run, jobs, clock } = setup();
    const first = await run();
    jobs.setStatus(tenant, first.job.id, 'completed');
    clock.advance(DEDUP_WINDOW_MS);
    expect(await run()).toMatchObject({ duplicate: true, job: { id: first.job.id, status: 'completed' } });
    clock.advance(1);
    const later = await run();
    expect(later.duplicate).toBe(false);
    expect(later.job.id).not.toBe(first.job.id);
  });

  it('dedupes an active job however old it is', async () => {
    const { run, jobs, clock } = setup();
    const first = await run();
    jobs.setStatus(tenant, first.job.id, 'processing');
    clock.advance(60 * 60_000);
    expect(await run()).toMatchObject({ duplicate: true, job: { id: first.job.id, status: 'processing' } });
  });

  it('never dedupes a failed job', async () => {
    const { run, jobs } = setup();
    const first = await run();
    jobs.setStatus(tenant, first.job.id, 'failed');
    const second = await run();
    expect(second.duplicate).toBe(false);
    expect(second.job.id).not.toBe(first.job.id);
  });

  it('answers a duplicate before resolving or dialling anything, even if the connection is gone', async () => {
    const { run, resolver, connections, pgMain, connectivity, clock } = setup();
    await run();
    await connections.softDelete(tenant, pgMain.id, clock.now());
    connectivity.checked.length = 0;
    // Resolving would reject now: the duplicate is answered without asking.
    resolver.faults.failAlways('resolve', new Error('resolved a duplicate'));
    expect((await run()).duplicate).toBe(true);
    expect(connectivity.checked).toEqual([]);
  });

  it('returns the racing winner when the active-hash constraint refuses the insert', async () => {
    const { run, jobs, publisher } = setup();
    // Another request inserts the same job between our window lookup and our insert.
    let winner: string | undefined;
    jobs.beforeInsert = () => {
      jobs.beforeInsert = undefined;
      void run().then((r) => (winner = r.job.id));
    };
    const first = run();
    const result = await first;
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(jobs.all(tenant)).toHaveLength(1);
    expect(publisher.published).toHaveLength(1);
    expect([result.job.id, winner]).toContain(jobs.all(tenant)[0].id);
  });

  it('answers a job that completed between the window look-up and the insert, instead of storing a second', async () => {
    const { jobs, run, publisher, connectivity } = setup();
    const first = await run();
    jobs.setStatus(tenant, first.job.id, 'completed');
    // Our look-up ran before that job existed (it came from another replica, and its Worker was quick).
    jobs.findNewestByHashSince = async () => undefined;
    const result = await run();
    expect(result).toMatchObject({ duplicate: true, job: { id: first.job.id, status: 'completed' } });
    expect(connectivity.checked).toEqual(['pg-main', 'pg-main']);
    expect(jobs.all(tenant)).toHaveLength(1);
    expect(publisher.published).toHaveLength(1);
  });

  it('answers 500 when the repository reports the request hash contended', async () => {
    const { jobs, run, publisher } = setup();
    jobs.insertUnlessReusable = async () => ({ created: false, contended: true });
    expect(await failure(run())).toMatchObject({ code: 'FET-0002' });
    expect(publisher.published).toHaveLength(0);
  });

  it('shares one creation among identical requests in flight: one look-up, one dial, one job', async () => {
    const { run, jobs, connectivity, publisher } = setup();
    const results = await Promise.all(Array.from({ length: 5 }, () => run()));
    expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
    expect(new Set(results.map((r) => r.job.id)).size).toBe(1);
    expect(connectivity.checked).toEqual(['pg-main']);
    expect(jobs.all(tenant)).toHaveLength(1);
    expect(publisher.published).toHaveLength(1);
  });

  it('shares a failure among identical requests in flight, and lets a later one try again', async () => {
    const { run, connectivity, jobs } = setup();
    connectivity.outcomes.set('pg-main', 'unavailable');
    const failures = await Promise.all(Array.from({ length: 3 }, () => failure(run())));
    expect(failures.map((f) => f.code)).toEqual(['FET-1040', 'FET-1040', 'FET-1040']);
    expect(connectivity.checked).toEqual(['pg-main']);
    connectivity.outcomes.delete('pg-main');
    expect((await run()).duplicate).toBe(false);
    expect(jobs.all(tenant)).toHaveLength(1);
  });

  it('marks the job failed and answers 500 when the broker refuses it', async () => {
    const { run, jobs, publisher, clock } = setup();
    publisher.failWith = new Error('channel closed');
    expect(await failure(run())).toMatchObject({ code: 'FET-0002', category: 'internal' });
    expect(jobs.all(tenant)).toMatchObject([
      { status: 'failed', completedAt: clock.now(), dispatchedAt: null, metadata: { source: 'reporter', error: 'process failed: unable to publish' } },
    ]);
  });

  it('lets a retry through after a publish failure', async () => {
    const { run, publisher } = setup();
    publisher.failWith = new Error('down');
    await failure(run());
    publisher.failWith = undefined;
    expect((await run()).duplicate).toBe(false);
  });

  it('still answers 500 and leaves the job for the sweep when marking it failed also fails', async () => {
    const { run, jobs, publisher } = setup();
    publisher.failWith = new Error('down');
    jobs.faults.failNext('markDispatchFailed', new Error('mongo down'));
    expect(await failure(run())).toMatchObject({ code: 'FET-0002' });
    expect(jobs.all(tenant)).toMatchObject([{ status: 'pending', dispatchedAt: null }]);
  });

  it('answers 202 even when recording the dispatch fails: the message is out, the job left for the sweep', async () => {
    const { run, jobs, marks } = setup();
    jobs.faults.failNext('markDispatched', new Error('mongo down'));
    expect((await run()).duplicate).toBe(false);
    await marks.settled();
    expect(jobs.all(tenant)).toMatchObject([{ status: 'pending', dispatchedAt: null }]);
  });

  describe('validation order', () => {
    it('requires mappedFields with an E2 body', async () => {
      const { run } = setup();
      expect(await failure(run(aJobRequest({ dataRequest: {} })))).toEqual({
        code: 'FET-0402',
        title: 'Missing Fields in Request',
        message: 'Some required fields are missing. Please check the listed fields and try again.',
        fields: { mappedFields: 'dataRequest.mappedFields is a required field' },
        category: 'validation',
      });
    });

    it.each([
      [{ dataRequest: { mappedFields: {} } }, 'FET-0401', 'Invalid Data Request', 'mappedFields cannot be empty'],
      [{ dataRequest: { mappedFields: { a: { t: [] } } } }, 'FET-0401', 'Invalid Data Request', 'datasource must have at least one table with fields'],
      [{ dataRequest: { mappedFields: { a: {} } } }, 'FET-0401', 'Invalid Data Request', 'datasource must have at least one table with fields'],
      [
        { dataRequest: { mappedFields: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`ds${i}`, { t: ['f'] }])) } },
        'FET-0401',
        'Invalid Data Request',
        'Maximum 10 datasources allowed per job, got 11',
      ],
      [{ metadata: null }, 'FET-0402', 'Missing Required Field', "metadata is required and must contain 'source' field"],
      [{ metadata: {} }, 'FET-0402', 'Missing Required Field', 'metadata.source is required for job notification routing'],
      [{ metadata: { source: 7 } }, 'FET-0402', 'Invalid Field Value', 'metadata.source must be a non-empty string'],
      [{ metadata: { source: '  ' } }, 'FET-0402', 'Invalid Field Value', 'metadata.source must be a non-empty string'],
      [
        { dataRequest: { mappedFields: { 'pg-main': { t: ['f'] } }, filters: { zeta: {}, alpha: { t: { f: { eq: [1] } } } } } },
        'FET-0401',
        'Invalid Filter References',
        "filter references unknown datasource 'alpha' not found in mappedFields; filter references unknown datasource 'zeta' not found in mappedFields",
      ],
    ])('%j -> %s %s', async (body, code, title, message) => {
      const { run, publisher } = setup();
      expect(await failure(run(aJobRequest(body)))).toMatchObject({ code, title, message, category: 'validation' });
      expect(publisher.published).toHaveLength(0);
    });

    it('checks the data request before metadata, and metadata before filter references', async () => {
      const { run } = setup();
      expect(await failure(run(aJobRequest({ dataRequest: { mappedFields: {}, filters: { x: {} } }, metadata: null })))).toMatchObject({
        message: 'mappedFields cannot be empty',
      });
      expect(await failure(run(aJobRequest({ dataRequest: { mappedFields: { 'pg-main': { t: ['f'] } }, filters: { x: {} } }, metadata: null })))).toMatchObject({
        code: 'FET-0402',
      });
    });

    it('leaves table and field names of internal datasources to the Worker', async () => {
      const { run, schema } = setup();
      const result = await run(aJobRequest({ dataRequest: { mappedFields: { 'internal-ds': { 'no.such.table': ['*'] } } } }));
      expect(result.duplicate).toBe(false);
      expect(schema.checked).toEqual([]);
    });
  });

  describe('filters (FET-0415)', () => {
    const withFilters = (filters: unknown, mappedFields: unknown = { 'pg-main': { transactions: ['id', 'amount'] } }) =>
      aJobRequest({ dataRequest: { mappedFields, filters } });

    it.each([
      ['malformed operands', { amount: { between: [5] } }, "filter on 'pg-main.transactions.amount': operator 'between' needs exactly 2 values, got 1", 'between'],
      ['an unknown operator', { amount: { greater: [5] } }, "filter on 'pg-main.transactions.amount': unknown operator 'greater' (use one of eq, gt, gte, lt, lte, between, in, nin, ne, like)", 'greater'],
      ['an empty value list', { id: { in: [] } }, "filter on 'pg-main.transactions.id': operator 'in' needs at least one value, got none", 'in'],
    ])('refuses %s with a 400 naming the filter, and stores and dials nothing', async (_name, condition, message, operator) => {
      const { run, jobs, connectivity } = setup();
      const error = (await run(withFilters({ 'pg-main': { transactions: condition } })).catch((e: unknown) => e)) as AppError;
      expect(error).toMatchObject({ code: 'FET-0415', title: 'Invalid Filter', message, category: 'validation' });
      expect(error.errors).toEqual([{ dataSourceId: 'pg-main', table: 'transactions', field: Object.keys(condition)[0], operator, message }]);
      expect(jobs.all(tenant)).toEqual([]);
      expect(connectivity.checked).toEqual([]);
    });

    it('refuses a filter on a table the request does not map', async () => {
      const { run } = setup();
      expect(await failure(run(withFilters({ 'pg-main': { invoices: { total: { gt: [5] } } } })))).toMatchObject({
        code: 'FET-0415',
        message: "filter on table 'pg-main.invoices': the table is not in mappedFields of datasource 'pg-main'",
      });
    });

    it('matches table keys as the Worker does for the type (public. is the default schema on PostgreSQL)', async () => {
      const { run } = setup();
      const result = await run(withFilters({ 'pg-main': { transactions: { status: { eq: ['done'] } } } }, { 'pg-main': { 'public.transactions': ['id'] } }));
      expect(result.duplicate).toBe(false);
    });

    it('accepts a filter on a field the table does not return', async () => {
      const { run } = setup();
      expect((await run(withFilters({ 'pg-main': { transactions: { status: { eq: ['done'] } } } }))).duplicate).toBe(false);
    });

    it('lists every problem, sorted, in the message', async () => {
      const { run } = setup();
      const filters = { 'pg-main': { transactions: { id: { lt: [1, 2] }, amount: { between: [1] } }, ghost: { x: { eq: [1] } } } };
      expect((await failure(run(withFilters(filters)))).message).toBe(
        "filter on table 'pg-main.ghost': the table is not in mappedFields of datasource 'pg-main'; " +
          "filter on 'pg-main.transactions.amount': operator 'between' needs exactly 2 values, got 1; " +
          "filter on 'pg-main.transactions.id': operator 'lt' needs exactly 1 value, got 2",
      );
    });
  });

  describe('incremental (FET-0418)', () => {
    const cursor = { cursorField: 'updated_at', after: { value: '2026-01-01T00:00:00Z', key: '7' } };
    const withIncremental = (incremental: unknown, mappedFields: unknown = { 'pg-main': { transactions: ['id', 'amount'] } }) =>
      aJobRequest({ dataRequest: { mappedFields, incremental } });

    it('stores and publishes the incremental choice as sent, and checks it with the schema of its datasource', async () => {
      const { run, jobs, publisher, schema } = setup();
      const { job } = await run(withIncremental({ 'pg-main': { 'public.transactions': cursor } }));
      expect((await jobs.findById(tenant, job.id))?.incremental).toEqual({ 'pg-main': { 'public.transactions': cursor } });
      expect(publisher.published[0].job.incremental).toEqual({ 'pg-main': { 'public.transactions': cursor } });
      expect(JSON.parse(buildJobMessage(publisher.published[0].job).toString('utf8'))).toMatchObject({ incremental: { 'pg-main': { 'public.transactions': cursor } } });
      expect(schema.checked).toEqual([{ configName: 'pg-main', tables: ['transactions'], bounded: true, incremental: { 'public.transactions': cursor } }]);
    });

    it('deduplicates on the incremental parameters: another after or a lag is another job, the same one the same job', async () => {
      const { run } = setup();
      const first = await run(withIncremental({ 'pg-main': { transactions: cursor } }));
      const full = await run();
      const next = await run(withIncremental({ 'pg-main': { transactions: { ...cursor, after: { value: '2026-01-02T00:00:00Z', key: '9' } } } }));
      const lagged = await run(withIncremental({ 'pg-main': { transactions: { ...cursor, lag: 60 } } }));
      const again = await run(withIncremental({ 'pg-main': { transactions: cursor } }));
      expect(new Set([first.job.id, full.job.id, next.job.id, lagged.job.id]).size).toBe(4);
      expect(again).toMatchObject({ job: { id: first.job.id }, duplicate: true });
    });

    it.each([
      ['an unknown key', { transactions: { cursorField: 'updated_at', window: 5 } }, 'incremental request is invalid: pg-main.transactions'],
      ['a negative lag', { transactions: { cursorField: 'updated_at', lag: -5 } }, `${IncrementalText.lagInvalid}: pg-main.transactions`],
      ['a lag that is not a number', { transactions: { cursorField: 'updated_at', lag: '5 minutes' } }, `${IncrementalText.lagInvalid}: pg-main.transactions`],
      ['a blank cursor field', { transactions: { cursorField: ' ' } }, 'incremental request is invalid: pg-main.transactions'],
      ['a limit that is not a positive integer', { transactions: { cursorField: 'updated_at', limit: 0 } }, 'incremental limit must be a positive integer: pg-main.transactions'],
      ['a table the request does not map', { invoices: { cursorField: 'updated_at' } }, 'incremental table is not in mappedFields: pg-main.invoices'],
      ['a level that is not an object', { transactions: 'updated_at' }, 'incremental request is invalid: pg-main.transactions'],
    ])('refuses %s with a 400 naming the table, storing and dialling nothing', async (_name, tables, message) => {
      const { run, jobs, connectivity } = setup();
      const error = (await run(withIncremental({ 'pg-main': tables })).catch((e: unknown) => e)) as AppError;
      expect(error).toMatchObject({ code: 'FET-0418', title: 'Invalid Incremental Request', message, category: 'validation' });
      expect(error.errors).toEqual([expect.objectContaining({ dataSourceId: 'pg-main', table: Object.keys(tables)[0], message })]);
      expect(jobs.all(tenant)).toEqual([]);
      expect(connectivity.checked).toEqual([]);
    });

    it('refuses incremental that is not an object as a body that does not parse', () => {
      expect(parseCreateJobRequest({ dataRequest: { mappedFields: {}, incremental: [] } }).ok).toBe(false);
      expect(parseCreateJobRequest({ dataRequest: { mappedFields: {}, incremental: null } }).ok).toBe(true);
    });

    it('refuses what the schema check finds wrong with the cursor as FET-0418, not as an inconclusive check', async () => {
      const { run, schema, jobs } = setup();
      const problem = {
        reason: IncrementalText.nullableCursor,
        configName: 'pg-main',
        table: 'transactions',
        field: 'updated_at',
        message: `${IncrementalText.nullableCursor}: pg-main.transactions.updated_at`,
      };
      schema.failWith = new IncrementalRefused(problem);
      const error = (await run(withIncremental({ 'pg-main': { transactions: { cursorField: 'updated_at' } } })).catch((e: unknown) => e)) as AppError;
      expect(error).toMatchObject({ code: 'FET-0418', message: problem.message });
      expect(error.errors).toEqual([{ dataSourceId: 'pg-main', table: 'transactions', field: 'updated_at', reason: problem.reason, message: problem.message }]);
      expect(jobs.all(tenant)).toEqual([]);
    });
  });

  describe('tables and fields (the validate-schema report)', () => {
    it('refuses a missing table or field of a stored connection with 400 FET-1060 naming them, with the report, storing nothing', async () => {
      const { run, schema, jobs, publisher } = setup();
      schema.problems.set('pg-main', [
        { type: 'FIELD_NOT_FOUND', dataSourceId: 'pg-main', table: 'transactions', field: 'colour' },
        { type: 'TABLE_NOT_FOUND', dataSourceId: 'pg-main', table: 'invoices' },
      ]);
      const error = (await run(aJobRequest({ dataRequest: { mappedFields: { 'pg-main': { transactions: ['colour'], invoices: ['id'], empty: [] } } } })).catch(
        (e: unknown) => e,
      )) as AppError;
      expect(error).toMatchObject({
        code: 'FET-1060',
        title: 'Schema validation failed',
        message: "Schema validation found inconsistencies: table 'pg-main.invoices' not found; field 'pg-main.transactions.colour' not found",
        category: 'validation',
      });
      expect(error.errors).toEqual([
        { type: 'TABLE_NOT_FOUND', dataSourceId: 'pg-main', table: 'invoices' },
        { type: 'FIELD_NOT_FOUND', dataSourceId: 'pg-main', table: 'transactions', field: 'colour' },
      ]);
      expect(schema.checked).toEqual([{ configName: 'pg-main', tables: ['transactions', 'invoices'], bounded: true }]);
      expect(jobs.all(tenant)).toEqual([]);
      expect(publisher.published).toEqual([]);
    });

    it('checks the fields the filters name, and refuses a missing one as a filter field of its table', async () => {
      const { run, schema, jobs } = setup();
      schema.problems.set('pg-main', [{ type: 'FIELD_NOT_FOUND', dataSourceId: 'pg-main', table: 'public.transactions', field: 'tint', in: 'filters' }]);
      const request = aJobRequest({
        dataRequest: {
          mappedFields: { 'pg-main': { transactions: ['id'], empty: [] } },
          filters: { 'pg-main': { 'public.transactions': { tint: { eq: ['red'] }, amount: { gt: [1] } } } },
        },
      });
      const error = (await run(request).catch((e: unknown) => e)) as AppError;
      expect(error).toMatchObject({
        code: 'FET-1060',
        title: 'Schema validation failed',
        message: "Schema validation found inconsistencies: filter field 'pg-main.public.transactions.tint' not found",
        category: 'validation',
      });
      expect(error.errors).toEqual([{ type: 'FIELD_NOT_FOUND', dataSourceId: 'pg-main', table: 'public.transactions', field: 'tint', in: 'filters' }]);
      expect(schema.checked).toEqual([
        { configName: 'pg-main', tables: ['transactions'], bounded: true, filterFields: { 'public.transactions': ['tint', 'amount'] } },
      ]);
      expect(jobs.all(tenant)).toEqual([]);
    });

    it('names the first ten problems and counts the rest', async () => {
      const { run, schema } = setup();
      const fields = Array.from({ length: 12 }, (_, i) => `f${String(i).padStart(2, '0')}`);
      schema.problems.set('pg-main', fields.map((field) => ({ type: 'FIELD_NOT_FOUND', dataSourceId: 'pg-main', table: 't', field })));
      const error = (await run(aJobRequest({ dataRequest: { mappedFields: { 'pg-main': { t: fields } } } })).catch((e: unknown) => e)) as AppError;
      expect(error.message).toBe(
        `Schema validation found inconsistencies: ${fields.slice(0, 10).map((f) => `field 'pg-main.t.${f}' not found`).join('; ')}; and 2 more`,
      );
      expect(error.errors).toHaveLength(12);
    });

    it('accepts the job when the check cannot finish (budget spent, discovery failed): the Worker checks again', async () => {
      const { run, schema } = setup();
      schema.failWith = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
      expect((await run()).duplicate).toBe(false);
    });

    it('checks only after the dial succeeded', async () => {
      const { run, schema, connectivity } = setup();
      connectivity.outcomes.set('pg-main', 'unavailable');
      expect(await failure(run())).toMatchObject({ code: 'FET-1040' });
      expect(schema.checked).toEqual([]);
    });
  });

  describe('resolution, ownership and connectivity', () => {
    const twoSources = aJobRequest({ dataRequest: { mappedFields: { 'pg-main': { t: ['f'] }, 'internal-ds': { t: ['f'] } } } });

    it('answers 500 when resolution fails', async () => {
      const { run, resolver } = setup();
      resolver.faults.failAlways('resolve', new Error('mongo down'));
      expect(await failure(run())).toMatchObject({ code: 'FET-0002' });
    });

    it('answers FET-1020 No Connections Found when nothing resolves', async () => {
      const { run } = setup();
      expect(await failure(run(aJobRequest({ dataRequest: { mappedFields: { nope: { t: ['f'] } } } })))).toMatchObject({
        code: 'FET-1020',
        title: 'No Connections Found',
        message: 'No connections configured for the requested datasources',
      });
    });

    it('answers FET-1020 Missing Data Source naming the unresolved datasource', async () => {
      const { run } = setup();
      expect(await failure(run(aJobRequest({ dataRequest: { mappedFields: { 'pg-main': { t: ['f'] }, nope: { t: ['f'] } } } })))).toMatchObject({
        code: 'FET-1020',
        title: 'Missing Data Source',
        message: "No connection configured for datasource 'nope'",
      });
    });

    it('answers FET-1014 for an unassigned stored connection and exempts internal ones', async () => {
      const { run, changePgMain } = setup();
      await changePgMain({ productName: '' });
      expect(await failure(run(twoSources))).toMatchObject({
        code: 'FET-1014',
        message: "Connection 'pg-main' has no product assigned. Use the migration endpoint to assign it first.",
      });
    });

    it('compares the product case-sensitively (FET-1016)', async () => {
      const { run } = setup();
      expect(await failure(run(aJobRequest({ metadata: { source: 'Reporter' } })))).toMatchObject({
        code: 'FET-1016',
        message: "Connection 'pg-main' does not belong to the product identified by source 'Reporter'",
      });
    });

    it('dials every stored connection but no internal one', async () => {
      const { run, connectivity } = setup();
      await run(twoSources);
      expect(connectivity.checked).toEqual(['pg-main']);
    });

    it.each([
      ['host_not_allowed', 'FET-0414', 'Host is not a valid external database endpoint'],
      ['unavailable', 'FET-1040', "Connection 'pg-main' is not available"],
    ] as const)('maps a %s dial to %s and stores nothing', async (outcome, code, message) => {
      const { run, connectivity, jobs } = setup();
      connectivity.outcomes.set('pg-main', outcome);
      expect(await failure(run())).toMatchObject({ code, message, category: 'validation' });
      expect(jobs.all(tenant)).toEqual([]);
    });

    it('maps a refused ssl mode to FET-0413 naming the mode', async () => {
      const { run, connectivity, changePgMain } = setup();
      await changePgMain({ ssl: { mode: 'bogus' } });
      connectivity.outcomes.set('pg-main', 'ssl_mode_not_allowed');
      expect(await failure(run())).toMatchObject({ code: 'FET-0413', message: expect.stringContaining("'bogus'") });
    });
  });
});
