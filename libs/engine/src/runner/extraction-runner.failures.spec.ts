import { EngineError, ErrorText, type CursorItem } from '../index';
import { noConnectorText } from '../errors';
import { MemoryResultSink, TemplateConnector } from '../memory';
import { Deadline } from '../support/deadline';
import { aWorldWith, deferred, EventLog, TENANT, text, type World } from '../testing/engine-fixture';
import { bytes, failure, planUsers, scripted, USERS_DOC } from '../testing/runner-fixture';
import { ExtractionRunner } from './extraction-runner';

describe(`${ExtractionRunner.name} failure paths`, () => {
  describe('cancellation and deadlines', () => {
    it('fails a run whose host signal is already aborted as canceled, without building a connector', async () => {
      const sink = new MemoryResultSink();
      const world = await aWorldWith(['crm'], { resultSink: sink });
      const plan = await planUsers(world);
      const builds = world.factory.buildCount;
      const error = await failure(world.engine.executeExtraction(plan, { signal: AbortSignal.abort() }));
      expect(error).toEqual(new EngineError('canceled', ErrorText.canceled));
      expect(world.factory.buildCount).toBe(builds);
      expect(sink.openCount).toBe(0);
    });

    it('cancels a running query when the host aborts, and closes the connector', async () => {
      const world = await aWorldWith(['crm']);
      const plan = await planUsers(world);
      const queried = new EventLog<string>();
      world.template.behavior = {
        ...world.template.behavior,
        afterQuery: (request, signal) => {
          queried.push(request.configName);
          return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
        },
      };
      const host = new AbortController();
      const running = world.engine.executeExtraction(plan, { signal: host.signal });
      await queried.until(1);
      host.abort();
      expect(await failure(running)).toEqual(new EngineError('canceled', ErrorText.canceled));
      expect(world.factory.lastBuilt?.closeCount).toBe(1);
    });

    it('times out at the plan deadline with a connector that waits on the signal', async () => {
      const world = await aWorldWith(['crm']);
      const plan = await planUsers(world, { timeoutMs: 1 });
      world.template.behavior = { ...world.template.behavior, blockOnSignal: true };
      expect(await failure(world.engine.executeExtraction(plan))).toEqual(new EngineError('timeout', ErrorText.deadline));
      expect(world.factory.lastBuilt?.closeCount).toBe(1);
    });

    it('checks the deadline once per batch of rows, not once per row', async () => {
      const world = await aWorldWith(['crm']);
      const plan = await planUsers(world);
      const rows: CursorItem[] = Array.from({ length: 2000 }, (_, i) => ({ table: 'users', row: { active: true, id: i, name: 'n' } }));
      scripted(world, rows);
      const race = jest.spyOn(Deadline.prototype, 'race');
      try {
        const result = await world.engine.executeExtraction(plan, { signal: new AbortController().signal });
        expect(result.rowCounts).toEqual({ crm: 2000 });
        // 2000 rows in batches of 256: 8 batch reads, plus the few races around connecting and writing.
        expect(race.mock.calls.length).toBeLessThan(40);
      } finally {
        race.mockRestore();
      }
    });

    it('still stops at its deadline when a cursor never answers and ignores the signal', async () => {
      const world = await aWorldWith(['crm']);
      const plan = await planUsers(world, { timeoutMs: 50 });
      world.registry.register('memory', {
        build: (descriptor) => {
          const connector = new TemplateConnector({}, descriptor);
          let served = 0;
          connector.queryStream = () =>
            Promise.resolve({
              next: () => (served++ < 3 ? Promise.resolve({ table: 'users', row: { id: served } }) : new Promise<never>(() => undefined)),
              close: () => Promise.resolve(),
            });
          return connector;
        },
      });
      expect(await failure(world.engine.executeExtraction(plan))).toEqual(new EngineError('timeout', ErrorText.deadline));
    });

    it('reports a host deadline (AbortSignal.timeout) as timeout', async () => {
      const world = await aWorldWith(['crm']);
      const plan = await planUsers(world);
      world.template.behavior = { ...world.template.behavior, blockOnSignal: true };
      const error = await failure(world.engine.executeExtraction(plan, { signal: AbortSignal.timeout(1) }));
      expect(error).toEqual(new EngineError('timeout', ErrorText.deadline));
    });

    it('cancels while the sink holds back a write, and aborts the writer', async () => {
      const sink = new MemoryResultSink();
      const entered = deferred();
      const gate = deferred();
      // A thenable gate tells the test the moment the writer starts waiting on it.
      sink.writeGate = {
        then: (resolve: () => void, reject: (e: unknown) => void) => {
          entered.resolve();
          return gate.promise.then(resolve, reject);
        },
      } as unknown as Promise<unknown>;
      const world = await aWorldWith(['crm'], { resultSink: sink });
      const host = new AbortController();
      const running = world.engine.executeExtraction(await planUsers(world), { signal: host.signal });
      await entered.promise;
      host.abort();
      expect(await failure(running)).toEqual(new EngineError('canceled', ErrorText.canceled));
      expect(sink.abortCount).toBe(1);
      gate.resolve();
    });
  });

  describe('failures', () => {
    it('maps a query error to the fixed text and keeps the driver message only as the hidden cause', async () => {
      const world = await aWorldWith(['crm']);
      const plan = await planUsers(world);
      const driver = new Error('password authentication failed for postgres://admin:hunter2@db');
      world.template.behavior = { ...world.template.behavior, queryErr: driver };
      const error = await failure(world.engine.executeExtraction(plan));
      expect(error).toEqual(new EngineError('unavailable', ErrorText.queryFailed));
      expect(error.cause).toBe(driver);
      expect(`${String(error)} ${JSON.stringify(error)}`).not.toContain('hunter2');
    });

    it('maps a failed connection test to unavailable "failed to connect to datasource"', async () => {
      const world = await aWorldWith(['crm']);
      const plan = await planUsers(world);
      world.template.behavior = { ...world.template.behavior, testErr: new Error('ECONNREFUSED') };
      expect(await failure(world.engine.executeExtraction(plan))).toEqual(new EngineError('unavailable', ErrorText.connectFailed));
      expect(world.factory.lastBuilt?.closeCount).toBe(1);
    });

    it('fails the whole run when the cursor breaks mid-stream, returning nothing partial', async () => {
      const sink = new MemoryResultSink();
      const world = await aWorldWith(['crm'], { resultSink: sink });
      const plan = await planUsers(world);
      world.template.behavior = { ...world.template.behavior, streamRowErr: new Error('connection reset'), streamFailAfter: 1 };
      expect(await failure(world.engine.executeExtraction(plan))).toEqual(new EngineError('unavailable', ErrorText.queryFailed));
      expect(sink.storedCount).toBe(0);
      expect(sink.abortCount).toBe(1);
    });

    it("passes a connector's own validation error through (a filter the datasource cannot apply)", async () => {
      const world = await aWorldWith(['crm']);
      const plan = await planUsers(world);
      const refusal = new EngineError('validation', 'like requires a text column: crm.users.id');
      world.template.behavior = { ...world.template.behavior, queryErr: refusal };
      expect(await failure(world.engine.executeExtraction(plan))).toBe(refusal);
    });

    it.each([
      ['a build error', (w: World) => void (w.factory.buildErr = new Error('bad dsn'))],
      ['a factory returning nothing', (w: World) => void (w.factory.nilConnector = true)],
    ])('maps %s to unavailable "failed to build connector for connection"', async (_name, arrange) => {
      const world = await aWorldWith(['crm']);
      const plan = await planUsers(world);
      arrange(world);
      expect(await failure(world.engine.executeExtraction(plan))).toEqual(new EngineError('unavailable', ErrorText.buildFailed));
    });

    it('reports a connection deleted after planning as not found, and an unregistered type by name', async () => {
      const world = await aWorldWith(['crm']);
      const plan = await planUsers(world);
      await world.store.update(TENANT, { ...(await world.store.findConnection(TENANT, 'crm'))!, type: 'cassandra' });
      expect(await failure(world.engine.executeExtraction(plan))).toEqual(new EngineError('not_found', noConnectorText('cassandra')));
      await world.engine.deleteConnection(TENANT, 'crm');
      expect(await failure(world.engine.executeExtraction(plan))).toEqual(new EngineError('not_found', ErrorText.connectionNotFound));
    });

    it.each<[string, CursorItem[]]>([
      ['tables out of order', [{ table: 'users', row: { id: 1 } }, { table: 'orders', row: { id: 2 } }]],
      ['a table that was not requested', [{ table: 'invoices', row: { id: 1 } }]],
      ['an item without a row', [{ table: 'users' } as unknown as CursorItem]],
      ['encoded rows claiming zero rows', [{ table: 'users', encoded: new TextEncoder().encode('{"id":1}'), rowCount: 0 }]],
      ['empty encoded rows', [{ table: 'users', encoded: new Uint8Array(0), rowCount: 1 }]],
    ])('fails with internal "extraction step failed unexpectedly" on %s', async (_name, items) => {
      const world = await aWorldWith(['crm']);
      const plan = await world.engine.planExtraction(TENANT, { mappedFields: { crm: { users: ['id'], orders: ['id'] } } });
      const built = scripted(world, items);
      expect(await failure(world.engine.executeExtraction(plan))).toEqual(new EngineError('internal', ErrorText.stepUnexpected));
      expect(built[0].closeCount).toBe(1);
    });

    it('fails with internal "failed to serialize extraction result" on a value JSON cannot hold', async () => {
      const world = await aWorldWith(['crm']);
      const plan = await planUsers(world);
      scripted(world, [{ table: 'users', row: { id: Symbol('x') as never } }]);
      expect(await failure(world.engine.executeExtraction(plan))).toEqual(new EngineError('internal', ErrorText.serializeFailed));
    });

    it('turns an unexpected throw from a connector into internal with a fixed text', async () => {
      const world = await aWorldWith(['crm']);
      const plan = await planUsers(world);
      world.registry.register('memory', {
        build: () => ({
          testConnection: async () => undefined,
          discoverSchema: async () => ({ configName: 'crm', tables: [] }),
          queryStream: async () => 42 as never,
          close: async () => undefined,
        }),
      });
      expect(await failure(world.engine.executeExtraction(plan))).toEqual(new EngineError('internal', ErrorText.stepUnexpected));
    });

    it('fails fast: the first error wins, the other steps are aborted and every connector is closed', async () => {
      const world = await aWorldWith(['a', 'b', 'c']);
      const plan = await world.engine.planExtraction(TENANT, { mappedFields: { a: { users: ['id'] }, b: { users: ['id'] }, c: { users: ['id'] } } });
      const planned = world.factory.built.length;
      const blocked = new EventLog<string>();
      world.template.behavior = {
        ...world.template.behavior,
        afterQuery: async (request) => {
          if (request.configName === 'b') throw new Error('b exploded');
          blocked.push(request.configName);
          await new Promise(() => undefined); // a and c never finish on their own
        },
      };
      expect(await failure(world.engine.executeExtraction(plan))).toEqual(new EngineError('unavailable', ErrorText.queryFailed));
      const built = world.factory.built.slice(planned);
      expect(built.map((c) => [c.descriptor?.configName, c.closeCount])).toEqual([['a', 1], ['b', 1], ['c', 1]]);
    });

    it('swallows close errors: the outcome is the extraction, not the cleanup', async () => {
      const world = await aWorldWith(['crm']);
      const plan = await planUsers(world);
      world.template.behavior = { ...world.template.behavior, closeErr: new Error('close failed') };
      expect(text((await world.engine.executeExtraction(plan)).direct?.data)).toBe(USERS_DOC);
    });
  });

  describe('pre-encoded rows', () => {
    it('writes them unchanged, counting their rows and bytes, with the same digest as row by row', async () => {
      const plain = await aWorldWith(['crm']);
      const expected = await plain.engine.executeExtraction(await planUsers(plain));
      const world = await aWorldWith(['crm'], {}, { rows: plain.template.behavior.rows, encodedBatchRows: 1 });
      const result = await world.engine.executeExtraction(await planUsers(world));
      expect(text(result.direct?.data)).toBe(USERS_DOC);
      expect(result.direct?.integrity).toEqual(expected.direct?.integrity);
      expect(result.direct?.rowCount).toBe(2);
    });

    it('holds them to the size limit', async () => {
      const world = await aWorldWith(['crm'], { limits: { maxResultBytes: bytes(USERS_DOC) - 1 } }, { rows: { users: [{ id: 1, name: 'Ada', active: true }, { id: 2, name: 'Linus', active: false }] }, encodedBatchRows: 2 });
      expect(await failure(world.engine.executeExtraction(await planUsers(world)))).toEqual(new EngineError('limit_exceeded', ErrorText.resultTooLarge));
    });
  });
});
