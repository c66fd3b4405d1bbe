import { EngineError, type CursorItem, type RowCursor } from '../index';
import { noConnectorText } from '../errors';
import { eagerCursor } from './eager-cursor';
import { MemoryConnectorFactory } from './memory-connector-factory';
import { MemoryConnectorRegistry } from './memory-connector-registry';
import { TemplateConnector } from './template-connector';
import { MemoryExecutionStore } from './memory-execution-store';
import { RecordingExecutionStore } from './recording-execution-store';
import { MemorySchemaCache } from './memory-schema-cache';
import { TENANT } from '../testing/engine-fixture';

const descriptor = { configName: 'crm', type: 'memory', host: 'h', port: 1, databaseName: 'd', userName: 'u' };

async function drain(cursor: RowCursor): Promise<CursorItem[]> {
  const items: CursorItem[] = [];
  for (let item = await cursor.next(); item; item = await cursor.next()) items.push(item);
  return items;
}

describe(TemplateConnector.name, () => {
  it('clones its behaviour per build; the template reports the last built connector', async () => {
    const template = new TemplateConnector({ rows: { users: [{ id: 1 }] } });
    const factory = new MemoryConnectorFactory(template);
    const first = factory.build(descriptor) as TemplateConnector;
    await first.close();
    template.behavior.testErr = new Error('later builds fail the test');
    const second = factory.build(descriptor) as TemplateConnector;
    await expect(second.testConnection(new AbortController().signal)).rejects.toThrow('later builds');
    await expect(first.testConnection(new AbortController().signal)).resolves.toBeUndefined();
    expect([template.closeCount, template.testCalls, first.closeCount]).toEqual([0, 1, 1]);
    expect([factory.buildCount, factory.built.length, factory.lastBuilt]).toEqual([2, 2, second]);
  });

  it('answers queries with a projected copy of its rows, tables in sorted order, and records the requests', async () => {
    const rows = { users: [{ id: 1, name: 'Ada', secret: 'x' }], accounts: [{ id: 7 }] };
    const sut = new TemplateConnector({ rows });
    const request = { configName: 'crm', tables: { users: ['id', 'name'], accounts: ['id'] } };
    const items = await drain(await sut.queryStream(request, new AbortController().signal));
    expect(items).toEqual([{ table: 'accounts', row: { id: 7 } }, { table: 'users', row: { id: 1, name: 'Ada' } }]);
    expect(sut.queries).toEqual([request]);
    expect(sut.queryCalls).toBe(1);
  });

  it('derives a schema with column kinds from its rows when none is given', async () => {
    const sut = new TemplateConnector({ rows: { t: [{ id: 1n, price: 1.5, ok: true, name: 'x', doc: { a: 1 }, maybe: null }] } }, descriptor);
    const schema = await sut.discoverSchema(new AbortController().signal);
    expect(schema.tables[0].fields).toEqual(['doc', 'id', 'maybe', 'name', 'ok', 'price']);
    expect(schema.tables[0].columns?.map((c) => c.kind)).toEqual(['json', 'integer', 'other', 'string', 'boolean', 'float']);
  });

  it('fails the stream after streamFailAfter rows, generates large tables lazily and can pre-encode', async () => {
    const failing = new TemplateConnector({ rows: { t: [{ a: 1 }, { a: 2 }] }, streamRowErr: new Error('reset'), streamFailAfter: 1 });
    const cursor = await failing.queryStream({ configName: 'c', tables: { t: ['a'] } }, new AbortController().signal);
    expect(await cursor.next()).toEqual({ table: 't', row: { a: 1 } });
    await expect(cursor.next()).rejects.toThrow('reset');

    let produced = 0;
    const large = new TemplateConnector({
      encodedBatchRows: 2,
      largeRowFactory: function* () {
        for (let i = 0; i < 3; i++, produced++) yield { i };
      },
    });
    const lazy = await large.queryStream({ configName: 'c', tables: { t: ['i'] } }, new AbortController().signal);
    expect(produced).toBe(0);
    const first = (await lazy.next()) as { encoded: Uint8Array; rowCount: number };
    expect([new TextDecoder().decode(first.encoded), first.rowCount]).toEqual(['{"i":0},{"i":1}', 2]);
  });

  it('waits on the signal when blockOnSignal is set, then rejects with its reason', async () => {
    const sut = new TemplateConnector({ blockOnSignal: true });
    const controller = new AbortController();
    const pending = sut.queryStream({ configName: 'c', tables: {} }, controller.signal);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });
});

describe(eagerCursor.name, () => {
  it('yields tables in UTF-8 order and rows in array order, stops on abort and closes idempotently', async () => {
    const controller = new AbortController();
    const cursor = eagerCursor({ b: [{ n: 1 }, { n: 2 }], a: [{ n: 0 }] }, controller.signal);
    expect(await cursor.next()).toEqual({ table: 'a', row: { n: 0 } });
    expect(await cursor.next()).toEqual({ table: 'b', row: { n: 1 } });
    controller.abort(new Error('aborted'));
    await expect(cursor.next()).rejects.toThrow('aborted');
    await cursor.close();
    await cursor.close();
    expect(await drain(eagerCursor({ t: [] }))).toEqual([]);
  });
});

describe(MemoryConnectorRegistry.name, () => {
  it('lets a later registration win and names the missing type', () => {
    const first = new MemoryConnectorFactory();
    const second = new MemoryConnectorFactory();
    const sut = new MemoryConnectorRegistry().register('pg', first).register('pg', second);
    expect(sut.connector('pg')).toBe(second);
    expect(sut.connector('PG')).toBeUndefined();
    expect(() => sut.lookupOrError('mssql')).toThrow(expect.objectContaining({ category: 'not_found', message: noConnectorText('mssql') }));
  });
});

describe('execution stores and schema cache', () => {
  it('keep the last state per job, record every attempt, and fail on their knobs', async () => {
    const last = new MemoryExecutionStore();
    await last.saveExecution(TENANT, { jobId: 'j', status: 'running' });
    await last.saveExecution(TENANT, { jobId: 'j', status: 'completed' });
    expect(last.find(TENANT, 'j')?.status).toBe('completed');
    last.saveErr = true;
    await expect(last.saveExecution(TENANT, { status: 'failed' })).rejects.toEqual(new EngineError('unavailable', 'execution store unavailable'));

    const recording = new RecordingExecutionStore();
    await recording.saveExecution(TENANT, { jobId: 'j', status: 'running' });
    await recording.saveExecution(TENANT, { jobId: 'k', status: 'running' });
    expect([recording.statuses(), recording.statuses('k')]).toEqual([['running', 'running'], ['running']]);

    const cache = new MemorySchemaCache();
    await cache.putSchema(TENANT, { configName: 'c', tables: [] });
    expect(await cache.getSchema(TENANT, 'c')).toEqual({ configName: 'c', tables: [] });
    cache.getErr = new Error('get');
    await expect(cache.getSchema(TENANT, 'c')).rejects.toThrow('get');
  });
});
