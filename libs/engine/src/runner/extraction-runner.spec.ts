import { EngineError, ErrorText, JsonNumber, type ExtractionPlan, type Row } from '../index';
import { MemoryResultSink, RecordingExecutionStore } from '../memory';
import { aWorldWith, deferred, EventLog, TENANT, text, type World } from '../testing/engine-fixture';
import { bytes, failure, planUsers, sha256, USERS_DOC } from '../testing/runner-fixture';
import { ExtractionRunner } from './extraction-runner';

describe(ExtractionRunner.name, () => {
  describe('direct mode', () => {
    it('returns the canonical document with its SHA-256 digest, size and row counts', async () => {
      const world = await aWorldWith(['crm', 'erp']);
      const plan = await world.engine.planExtraction(TENANT, {
        mappedFields: { erp: { users: ['id'] }, crm: { users: ['name', 'id'], orders: ['total'] } },
      });
      const result = await world.engine.executeExtraction(plan);
      const expected =
        '{"crm":{"orders":[{"total":"12.50"}],"users":[{"id":1,"name":"Ada"},{"id":2,"name":"Linus"}]},"erp":{"users":[{"id":1},{"id":2}]}}';
      expect(text(result.direct?.data)).toBe(expected);
      expect(result.direct).toMatchObject({
        format: 'json',
        rowCount: 5,
        plaintextSize: bytes(expected),
        integrity: { algorithm: 'SHA-256', digest: sha256(expected) },
        protection: { encrypted: false, appliedBy: 'engine' },
      });
      expect(result.reference).toBeUndefined();
      expect(result.rowCounts).toEqual({ crm: 3, erp: 2 });
      expect(result.state.status).toBe('completed');
    });

    it('writes tables without rows as [] and counts them as zero', async () => {
      const world = await aWorldWith(['crm'], {}, { rows: { users: [], orders: [] }, schema: { configName: 'crm', tables: [{ name: 'users', fields: ['id'] }, { name: 'orders', fields: ['id'] }] } });
      const plan = await world.engine.planExtraction(TENANT, { mappedFields: { crm: { users: ['id'], orders: ['id'] } } });
      const result = await world.engine.executeExtraction(plan);
      expect(text(result.direct?.data)).toBe('{"crm":{"orders":[],"users":[]}}');
      expect(result.rowCounts).toEqual({ crm: 0 });
    });

    it('keeps 64-bit integers and decimals exact and sorts nested keys', async () => {
      const row: Row = { id: 2n ** 63n - 1n, amount: new JsonNumber('12345678901234567890.123456789'), doc: { z: 1, a: [{ y: 2, b: 1 }] } };
      const world = await aWorldWith(['crm'], {}, { rows: { users: [row] } });
      const result = await world.engine.executeExtraction(await planUsers(world));
      expect(text(result.direct?.data)).toBe(
        '{"crm":{"users":[{"amount":12345678901234567890.123456789,"doc":{"a":[{"b":1,"y":2}],"z":1},"id":9223372036854775807}]}}',
      );
    });

    it('stamps results and states with the injected clock', async () => {
      const world = await aWorldWith(['crm'], { clock: () => new Date('2026-01-02T03:04:05.000Z') });
      const result = await world.engine.executeExtraction(await planUsers(world));
      expect(result.direct?.completedAt).toBe('2026-01-02T03:04:05.000Z');
      expect(result.state).toEqual({ status: 'completed', startedAt: '2026-01-02T03:04:05.000Z', completedAt: '2026-01-02T03:04:05.000Z' });
    });
  });

  describe('mode', () => {
    it('auto streams to the sink when one is configured, and direct ignores it', async () => {
      const sink = new MemoryResultSink();
      const world = await aWorldWith(['crm'], { resultSink: sink });
      const plan = await planUsers(world);
      expect(plan.mode).toBe('auto');
      expect((await world.engine.executeExtraction(plan)).reference).toBeDefined();
      plan.mode = 'direct';
      expect(text((await world.engine.executeExtraction(plan)).direct?.data)).toBe(USERS_DOC);
      expect(sink.openCount).toBe(1);
    });

    it('refuses store mode without a sink', async () => {
      const world = await aWorldWith();
      const plan = await planUsers(world);
      plan.mode = 'store';
      await expect(world.engine.executeExtraction(plan)).rejects.toEqual(new EngineError('validation', ErrorText.storeModeNeedsSink));
    });
  });

  describe('store mode', () => {
    it('streams the canonical document to the sink and returns its reference', async () => {
      const sink = new MemoryResultSink();
      const world = await aWorldWith(['crm'], { resultSink: sink });
      const plan = await planUsers(world);
      plan.requestId = 'job-1';
      plan.mode = 'store';
      const { reference, direct } = await world.engine.executeExtraction(plan);
      expect(direct).toBeUndefined();
      expect(reference).toMatchObject({ format: 'json', rowCount: 2, sizeBytes: bytes(USERS_DOC), integrity: { algorithm: 'SHA-256', digest: sha256(USERS_DOC) } });
      expect(reference?.path).toBe(`memory://acme/${sha256(USERS_DOC)}-1`);
      expect(text(sink.get(reference!.path))).toBe(USERS_DOC);
      expect(sink.requestIds).toEqual(['job-1']);
    });

    it('hands the sink chunks of at most 256 rows', async () => {
      const rows = Array.from({ length: 600 }, (_, id) => ({ id }));
      const sink = new MemoryResultSink();
      const world = await aWorldWith(['crm'], { resultSink: sink }, { rows: { users: rows } });
      const { reference } = await world.engine.executeExtraction(await planUsers(world));
      // "{", 256 rows, 256 rows, the last 88 rows with the closing brackets, "}".
      expect(sink.writeSizes).toHaveLength(5);
      expect(reference?.rowCount).toBe(600);
      expect(JSON.parse(text(sink.get(reference!.path))).crm.users).toHaveLength(600);
    });

    it('uses the engine digest and size when the sink reports none, and keeps the sink protection', async () => {
      const sink = new MemoryResultSink();
      sink.omitIntegrity = true;
      sink.omitSizeBytes = true;
      sink.protectionResult = { encrypted: true, keyVersion: 3, mode: 'aes-256-gcm', appliedBy: 'adapter' };
      const world = await aWorldWith(['crm'], { resultSink: sink });
      const { reference } = await world.engine.executeExtraction(await planUsers(world));
      expect(reference).toMatchObject({
        sizeBytes: bytes(USERS_DOC),
        integrity: { algorithm: 'SHA-256', digest: sha256(USERS_DOC) },
        protection: { encrypted: true, keyVersion: 3, mode: 'aes-256-gcm', appliedBy: 'adapter' },
      });
    });

    it('refuses a reference whose protection names an unknown party, and aborts the writer', async () => {
      const sink = new MemoryResultSink();
      sink.protectionResult = { encrypted: true, appliedBy: 'somebody' };
      const world = await aWorldWith(['crm'], { resultSink: sink });
      await expect(world.engine.executeExtraction(await planUsers(world))).rejects.toEqual(new EngineError('validation', ErrorText.appliedByInvalid));
      expect(sink.abortCount).toBe(1);
    });

    it.each(['openErr', 'writeErr', 'closeErr'] as const)('reports a sink %s as a persist failure without its message', async (knob) => {
      const sink = new MemoryResultSink();
      sink[knob] = new Error('bucket s3://secret-bucket refused');
      const world = await aWorldWith(['crm'], { resultSink: sink });
      const error = await failure(world.engine.executeExtraction(await planUsers(world)));
      expect(error).toEqual(new EngineError('unavailable', ErrorText.persistFailed));
      expect(String(error)).toBe('engine: [unavailable] failed to persist extraction result');
      expect(JSON.stringify(error)).not.toContain('secret');
      expect(sink.storedCount).toBe(0);
      expect(world.factory.built.every((c) => c.closeCount === 1)).toBe(true);
    });
  });

  describe('size limit', () => {
    it('fails with limit_exceeded before the sink receives a byte beyond the limit', async () => {
      const rows = Array.from({ length: 1000 }, (_, id) => ({ id, name: `user-${id}` }));
      const sink = new MemoryResultSink();
      const world = await aWorldWith(['crm'], { resultSink: sink, limits: { maxResultBytes: 5000 } }, { rows: { users: rows } });
      const error = await failure(world.engine.executeExtraction(await planUsers(world)));
      expect(error).toEqual(new EngineError('limit_exceeded', ErrorText.resultTooLarge));
      expect(sink.writeSizes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(5000);
      expect(sink.abortCount).toBe(1);
      expect(sink.storedCount).toBe(0);
      expect(world.template.closeCount).toBe(1);
    });

    it('accepts a document of exactly the limit, and a request override lowers it', async () => {
      const world = await aWorldWith(['crm'], { limits: { maxResultBytes: bytes(USERS_DOC) } });
      expect(text((await world.engine.executeExtraction(await planUsers(world))).direct?.data)).toBe(USERS_DOC);
      const lowered = await planUsers(world, { maxResultBytes: bytes(USERS_DOC) - 1 });
      await expect(world.engine.executeExtraction(lowered)).rejects.toEqual(new EngineError('limit_exceeded', ErrorText.resultTooLarge));
    });

    it('never lets a hand-edited plan raise a limit above the engine', async () => {
      const real = await aWorldWith(['crm'], { limits: { maxResultBytes: 10 } });
      const plan = await real.engine.planExtraction(TENANT, { mappedFields: { crm: { users: ['id'] } } });
      const raised = { ...plan, limits: { ...plan.limits, maxResultBytes: 1_000_000 } };
      await expect(real.engine.executeExtraction(raised)).rejects.toEqual(new EngineError('limit_exceeded', ErrorText.resultTooLarge));
    });
  });

  describe('execution states', () => {
    it('saves running then completed under the plan request id', async () => {
      const executions = new RecordingExecutionStore();
      const world = await aWorldWith(['crm'], { executionStore: executions });
      const plan = await planUsers(world);
      plan.requestId = 'job-7';
      await world.engine.executeExtraction(plan);
      expect(executions.statuses('job-7')).toEqual(['running', 'completed']);
    });

    it('saves failed with the error text, and canceled for a host abort', async () => {
      const executions = new RecordingExecutionStore();
      const world = await aWorldWith(['crm'], { executionStore: executions });
      const plan = await planUsers(world);
      world.template.behavior = { ...world.template.behavior, queryErr: new Error('boom') };
      await failure(world.engine.executeExtraction(plan));
      await failure(world.engine.executeExtraction(plan, { signal: AbortSignal.abort() }));
      expect(executions.records.map((r) => [r.state.status, r.state.failureMessage])).toEqual([
        ['running', undefined],
        ['failed', ErrorText.queryFailed],
        ['running', undefined],
        ['canceled', ErrorText.canceled],
      ]);
    });

    it('still succeeds when the execution store fails', async () => {
      const executions = new RecordingExecutionStore();
      executions.saveErr = true;
      const world = await aWorldWith(['crm'], { executionStore: executions });
      expect(text((await world.engine.executeExtraction(await planUsers(world))).direct?.data)).toBe(USERS_DOC);
      expect(executions.statuses()).toEqual(['running', 'completed']);
    });
  });

  describe('ordinal window', () => {
    it('starts step i only after step i - W finished, and still writes in config order', async () => {
      const world = await aWorldWith(['a', 'b', 'c', 'd'], { limits: { maxConcurrency: 2 } });
      const plan = await world.engine.planExtraction(TENANT, {
        mappedFields: { d: { users: ['id'] }, c: { users: ['id'] }, b: { users: ['id'] }, a: { users: ['id'] } },
      });
      const started = new EventLog<string>();
      const release = new Map(['a', 'b', 'c', 'd'].map((name) => [name, deferred()]));
      world.template.behavior = {
        ...world.template.behavior,
        afterQuery: async ({ configName }) => {
          started.push(configName);
          await release.get(configName)!.promise;
        },
      };
      const running = world.engine.executeExtraction(plan);
      await started.until(2);
      expect(started.items).toEqual(['a', 'b']);
      release.get('b')!.resolve();
      await started.until(3);
      expect(started.items).toEqual(['a', 'b', 'd']); // d = 3 waits for b = 1, not for a
      release.get('d')!.resolve();
      release.get('a')!.resolve();
      await started.until(4);
      release.get('c')!.resolve();
      const result = await running;
      expect(Object.keys(JSON.parse(text(result.direct?.data)))).toEqual(['a', 'b', 'c', 'd']);
      expect(result.rowCounts).toEqual({ a: 2, b: 2, c: 2, d: 2 });
    });
  });

  describe('plan checks', () => {
    const valid = (world: World): Promise<ExtractionPlan> => planUsers(world);

    it.each<[string, (plan: ExtractionPlan) => unknown]>([
      ['not an object', () => 'plan'],
      ['no steps', (p) => ({ ...p, steps: [] })],
      ['an unknown mode', (p) => ({ ...p, mode: 'fast' })],
      ['a step without a config name', (p) => ({ ...p, steps: [{ ...p.steps[0], configName: ' ' }] })],
      ['a table without a field list', (p) => ({ ...p, steps: [{ ...p.steps[0], fields: {} }] })],
      ['duplicate tables', (p) => ({ ...p, steps: [{ ...p.steps[0], tables: ['users', 'users'] }] })],
      ['duplicate configs', (p) => ({ ...p, steps: [p.steps[0], p.steps[0]] })],
      ['limits that are not positive integers', (p) => ({ ...p, limits: { ...p.limits, maxConcurrency: 0 } })],
      ['a filter that is not an object', (p) => ({ ...p, steps: [{ ...p.steps[0], filters: { users: { id: 5 } } }] })],
      ['a request id that is not a string', (p) => ({ ...p, requestId: 7 })],
    ])('refuses a plan with %s', async (_name, mutate) => {
      const world = await aWorldWith();
      const plan = mutate(await valid(world));
      await expect(world.engine.executeExtraction(plan as ExtractionPlan)).rejects.toEqual(new EngineError('validation', ErrorText.invalidPlan));
    });

    it('refuses a plan whose tenant is not valid', async () => {
      const world = await aWorldWith();
      const plan = { ...(await valid(world)), tenantId: '../other' };
      await expect(world.engine.executeExtraction(plan)).rejects.toEqual(new EngineError('validation', ErrorText.tenantRequired));
    });
  });
});
