import { EngineError, ErrorText, IncrementalText, incrementalText, type ExtractionRequest, type Row, type SchemaSnapshot } from '../index';
import { iterableCursor, type ConnectorBehavior } from '../memory';
import { aWorldWith, text, TENANT } from '../testing/engine-fixture';

const SCHEMA: SchemaSnapshot = {
  configName: 'crm',
  tables: [
    {
      name: 'events',
      fields: ['id', 'ts', 'at', 'label', 'code', 'payload', 'flag', 'maybe', 'amount'],
      primaryKey: ['id'],
      columns: [
        { name: 'id', kind: 'integer', nativeType: 'int8' },
        { name: 'ts', kind: 'integer', nativeType: 'int8' },
        { name: 'at', kind: 'datetime', nativeType: 'timestamptz' },
        { name: 'label', kind: 'string', nativeType: 'text', ordering: 'collation' },
        { name: 'code', kind: 'string', nativeType: 'text', ordering: 'binary' },
        { name: 'payload', kind: 'json', nativeType: 'jsonb' },
        { name: 'flag', kind: 'boolean', nativeType: 'bool' },
        { name: 'maybe', kind: 'integer', nativeType: 'int8', nullable: true },
        { name: 'amount', kind: 'decimal', nativeType: 'numeric' },
      ],
    },
    { name: 'logs', fields: ['seq', 'ts'], columns: [{ name: 'seq', kind: 'integer', nativeType: 'int8' }, { name: 'ts', kind: 'integer', nativeType: 'int8' }] },
  ],
};

const EVENTS: Row[] = [
  { id: 3, ts: 10, at: '2026-01-01T00:00:00Z', label: 'c', code: 'c', maybe: 1, amount: '1.5' },
  { id: 1, ts: 10, at: '2026-01-01T00:00:00Z', label: 'a', code: 'a', maybe: null, amount: '1.50' },
  { id: 2, ts: 20, at: '2026-01-02T00:00:00.5Z', label: 'b', code: 'b', maybe: 2, amount: '10' },
  { id: 4, ts: 10, at: '2026-01-01T01:00:00+02:00', label: 'd', code: 'd', maybe: 3, amount: '-1' },
];

const world = (behavior: ConnectorBehavior = {}) => aWorldWith(['crm'], {}, { schema: SCHEMA, rows: { events: EVENTS, logs: [] }, ...behavior });

const request = (incremental: Record<string, unknown>, fields = ['id']): ExtractionRequest =>
  ({ mappedFields: { crm: { events: fields } }, incremental: { crm: { events: incremental } } }) as unknown as ExtractionRequest;

async function run(engine: Awaited<ReturnType<typeof world>>['engine'], req: ExtractionRequest) {
  const result = await engine.executeExtraction(await engine.planExtraction(TENANT, req));
  return { result, rows: (JSON.parse(text(result.direct?.data)) as { crm: { events: Row[] } }).crm.events };
}

describe('incremental extraction', () => {
  it('chains jobs by copying cursors: every row once, in (cursor, tie-breaker) order, across ties', async () => {
    const { engine, template } = await world();
    const first = await run(engine, request({ cursorField: 'ts', limit: 2 }));
    expect(first.rows).toEqual([{ id: 1, ts: 10 }, { id: 3, ts: 10 }]);
    expect(first.result.cursors).toEqual({ crm: { events: { value: '10', key: '3' } } });
    const second = await run(engine, request({ cursorField: 'ts', limit: 2, after: first.result.cursors?.crm.events }));
    expect(second.rows).toEqual([{ id: 4, ts: 10 }, { id: 2, ts: 20 }]);
    expect(template.queries[0].incremental).toEqual({
      events: { cursorField: 'ts', cursorKind: 'integer', tieBreaker: 'id', tieBreakerKind: 'integer', after: { value: 10n, key: 3n }, limit: 2 },
    });
    const third = await run(engine, request({ cursorField: 'ts', after: second.result.cursors?.crm.events }));
    expect(third.rows).toEqual([]);
    expect(third.result.cursors).toEqual(second.result.cursors);
  });

  it('reports null for a table with neither rows nor an after, and no cursors for a plan without incremental tables', async () => {
    const { engine } = await world({ rows: { events: [], logs: [] } });
    expect((await run(engine, request({ cursorField: 'ts' }))).result.cursors).toEqual({ crm: { events: null } });
    expect((await run(engine, { mappedFields: { crm: { events: ['id'] } } })).result.cursors).toBeUndefined();
  });

  it('adds the cursor and tie-breaker to the selected fields and orders date-times by instant', async () => {
    const { engine } = await world();
    const plan = await engine.planExtraction(TENANT, request({ cursorField: 'at', tieBreaker: 'code' }, ['label']));
    expect(plan.steps[0].fields.events).toEqual(['at', 'code', 'label']);
    const { rows, result } = await run(engine, request({ cursorField: 'at', tieBreaker: 'code', after: { value: '2026-01-01T00:00:00Z', key: 'a' } }, ['label']));
    // d's +02:00 puts it at 2025-12-31T23:00Z, before the bound.
    expect(rows.map((r) => r.code)).toEqual(['c', 'b']);
    expect(result.cursors?.crm.events).toEqual({ value: '2026-01-02T00:00:00.5Z', key: 'b' });
  });

  it('reads NULL cursors first when nulls "first" is chosen', async () => {
    const { engine } = await world();
    const { rows, result } = await run(engine, request({ cursorField: 'maybe', nulls: 'first', limit: 1 }));
    expect(rows).toEqual([{ id: 1, maybe: null }]);
    expect(result.cursors?.crm.events).toEqual({ value: null, key: '1' });
    const next = await run(engine, request({ cursorField: 'maybe', nulls: 'first', after: result.cursors?.crm.events }));
    expect(next.rows.map((r) => r.id)).toEqual([3, 2, 4]);
  });

  it('tracks positions from pre-encoded batches', async () => {
    const { engine } = await world({ encodedBatchRows: 3 });
    const { rows, result } = await run(engine, request({ cursorField: 'amount' }));
    expect(rows.map((r) => r.id)).toEqual([4, 1, 3, 2]);
    expect(result.cursors?.crm.events).toEqual({ value: '10', key: '2' });
  });

  describe('lag', () => {
    it('re-reads the window behind the cursor, late rows included, and reports the furthest position', async () => {
      const { engine, template } = await world();
      const first = await run(engine, request({ cursorField: 'ts' }));
      expect(first.result.cursors?.crm.events).toEqual({ value: '20', key: '2' });
      // Rows committed late: one inside the window (ts 15), one before it (ts 9), one new (ts 30).
      template.behavior = { ...template.behavior, rows: { events: [...EVENTS, { id: 5, ts: 15 }, { id: 6, ts: 9 }, { id: 7, ts: 30 }], logs: [] } };
      const second = await run(engine, request({ cursorField: 'ts', lag: 10, after: first.result.cursors?.crm.events }));
      expect(second.rows).toEqual([{ id: 1, ts: 10 }, { id: 3, ts: 10 }, { id: 4, ts: 10 }, { id: 5, ts: 15 }, { id: 2, ts: 20 }, { id: 7, ts: 30 }]);
      expect(second.result.cursors?.crm.events).toEqual({ value: '30', key: '7' });
      expect(template.queries.at(-1)?.incremental?.events.from).toBe(10n);
    });

    it('keeps the given cursor when the window holds nothing past it, and measures date-times in seconds', async () => {
      const { engine, template } = await world();
      const after = { value: '2026-01-02T00:00:00.5Z', key: 2 };
      const { rows, result } = await run(engine, request({ cursorField: 'at', lag: 86400.5, after }));
      expect(rows.map((r) => r.id)).toEqual([1, 3, 2]);
      expect(result.cursors?.crm.events).toEqual({ value: '2026-01-02T00:00:00.5Z', key: '2' });
      expect(template.queries.at(-1)?.incremental?.events.from).toBe('2026-01-01T00:00:00Z');
      // An empty window keeps the cursor too (rows on either side of it are gone).
      template.behavior = { ...template.behavior, rows: { events: [], logs: [] } };
      expect((await run(engine, request({ cursorField: 'at', lag: 1, after }))).result.cursors?.crm.events).toEqual({ value: '2026-01-02T00:00:00.5Z', key: '2' });
    });

    it('has no window without an after, and none inside the NULL cursors', async () => {
      const { engine, template } = await world();
      await run(engine, request({ cursorField: 'ts', lag: 5 }));
      expect(template.queries.at(-1)?.incremental?.events.from).toBeUndefined();
      await run(engine, request({ cursorField: 'maybe', nulls: 'first', lag: 5, after: { value: null, key: 1 } }));
      expect(template.queries.at(-1)?.incremental?.events).not.toHaveProperty('from');
    });
  });

  describe('refusals', () => {
    const path = 'crm.events';
    it.each<[string, unknown, string]>([
      ['a cursor field not in the schema', { cursorField: 'nope' }, incrementalText(IncrementalText.cursorNotFound, `${path}.nope`)],
      ['a tie-breaker not in the schema', { cursorField: 'ts', tieBreaker: 'nope' }, incrementalText(IncrementalText.tieBreakerNotFound, `${path}.nope`)],
      ['a json cursor', { cursorField: 'payload' }, incrementalText(IncrementalText.notOrderable, `${path}.payload`)],
      ['a boolean cursor', { cursorField: 'flag' }, incrementalText(IncrementalText.notOrderable, `${path}.flag`)],
      ['a text cursor ordered by a collation', { cursorField: 'label' }, incrementalText(IncrementalText.collationOrder, `${path}.label`)],
      ['a text tie-breaker ordered by a collation', { cursorField: 'ts', tieBreaker: 'label' }, incrementalText(IncrementalText.collationOrder, `${path}.label`)],
      ['a nullable cursor without nulls "first"', { cursorField: 'maybe' }, incrementalText(IncrementalText.nullableCursor, `${path}.maybe`)],
      ['a nullable tie-breaker', { cursorField: 'ts', tieBreaker: 'maybe' }, incrementalText(IncrementalText.nullableTieBreaker, `${path}.maybe`)],
      ['an after that does not parse as the cursor type', { cursorField: 'at', after: { value: 'yesterday', key: 1 } }, incrementalText(IncrementalText.afterInvalid, path)],
      ['an after whose key does not parse', { cursorField: 'ts', after: { value: 1, key: 'one' } }, incrementalText(IncrementalText.afterInvalid, path)],
      ['an after with a null cursor without nulls "first"', { cursorField: 'ts', after: { value: null, key: 1 } }, incrementalText(IncrementalText.afterInvalid, path)],
      ['an after with extra keys', { cursorField: 'ts', after: { value: 1, key: 1, id: 2 } }, incrementalText(IncrementalText.afterInvalid, path)],
      ['a zero limit', { cursorField: 'ts', limit: 0 }, incrementalText(IncrementalText.limitInvalid, path)],
      ['a fractional limit', { cursorField: 'ts', limit: 1.5 }, incrementalText(IncrementalText.limitInvalid, path)],
      ['an unknown key', { cursorField: 'ts', window: 5 }, incrementalText(IncrementalText.invalid, path)],
      ['a negative lag', { cursorField: 'ts', lag: -1 }, incrementalText(IncrementalText.lagInvalid, path)],
      ['a lag that is not a number', { cursorField: 'at', lag: 'PT5M' }, incrementalText(IncrementalText.lagInvalid, path)],
      ['a fractional lag on an integer cursor', { cursorField: 'ts', lag: 0.5 }, incrementalText(IncrementalText.lagInvalid, path)],
      ['a lag on a text cursor', { cursorField: 'code', lag: 1 }, incrementalText(IncrementalText.lagNotApplicable, `${path}.code`)],
      ['a blank cursor field', { cursorField: ' ' }, incrementalText(IncrementalText.invalid, path)],
      ['nulls "last"', { cursorField: 'maybe', nulls: 'last' }, incrementalText(IncrementalText.invalid, path)],
    ])('refuses %s', async (_name, incremental, message) => {
      const { engine } = await world();
      await expect(engine.planExtraction(TENANT, request(incremental as Record<string, unknown>))).rejects.toEqual(new EngineError('validation', message));
    });

    it('refuses a table without a primary key and without a tie-breaker, and a table that is not mapped', async () => {
      const { engine } = await world();
      const logs = { mappedFields: { crm: { logs: ['seq'] } }, incremental: { crm: { logs: { cursorField: 'ts' } } } } as ExtractionRequest;
      await expect(engine.planExtraction(TENANT, logs)).rejects.toEqual(new EngineError('validation', incrementalText(IncrementalText.noTieBreaker, 'crm.logs')));
      const unmapped = { mappedFields: { crm: { events: ['id'] } }, incremental: { crm: { logs: { cursorField: 'ts', tieBreaker: 'seq' } } } } as ExtractionRequest;
      await expect(engine.planExtraction(TENANT, unmapped)).rejects.toEqual(new EngineError('validation', incrementalText(IncrementalText.notMapped, 'crm.logs')));
      const shape = { mappedFields: { crm: { events: ['id'] } }, incremental: { crm: ['events'] } } as unknown as ExtractionRequest;
      await expect(engine.planExtraction(TENANT, shape)).rejects.toEqual(new EngineError('validation', incrementalText(IncrementalText.invalid, 'crm')));
    });

    it('refuses to run on a connector that does not declare supportsIncremental', async () => {
      const { engine } = await world({ supportsIncremental: false });
      const plan = await engine.planExtraction(TENANT, request({ cursorField: 'ts' }));
      await expect(engine.executeExtraction(plan)).rejects.toEqual(new EngineError('validation', incrementalText(IncrementalText.unsupported, 'crm')));
    });

    it('refuses a hand-edited plan whose after or fields do not fit', async () => {
      const { engine } = await world();
      const plan = await engine.planExtraction(TENANT, request({ cursorField: 'ts' }));
      const step = plan.steps[0];
      const edited = (incremental: unknown, fields = step.fields) => ({ ...plan, steps: [{ ...step, fields, incremental: { events: incremental } }] });
      const spec = step.incremental!.events;
      for (const bad of [
        edited({ ...spec, after: { value: 'x', key: '1' } }),
        edited({ ...spec, cursorKind: 'json' }),
        edited(spec, { events: ['id'] }),
        edited({ ...spec, limit: -1 }),
        edited({ ...spec, lag: 'soon' }),
      ]) {
        await expect(engine.executeExtraction(bad as never)).rejects.toEqual(new EngineError('validation', ErrorText.invalidPlan));
      }
    });
  });

  describe('what the runner checks of the connector', () => {
    const lying = (items: Row[], encoded = false): ConnectorBehavior => ({
      afterQuery: undefined,
      largeRowFactory: () => items,
      ...(encoded ? { encodedBatchRows: 1 } : {}),
    });

    it('fails a run whose rows repeat a position (a tie-breaker that is not unique) as validation', async () => {
      const { engine, template } = await world();
      template.behavior = { ...template.behavior, ...lying([{ id: 1, ts: 1 }, { id: 1, ts: 1 }]) };
      const plan = await engine.planExtraction(TENANT, request({ cursorField: 'ts' }));
      await expect(engine.executeExtraction(plan)).rejects.toEqual(new EngineError('validation', incrementalText(IncrementalText.notUnique, 'crm.events')));
    });

    it('fails a run with a NULL cursor value the schema did not announce as validation', async () => {
      const { engine, template } = await world();
      template.behavior = { ...template.behavior, largeRowFactory: undefined, rows: { events: [{ id: 1, ts: null }] } };
      const plan = await engine.planExtraction(TENANT, request({ cursorField: 'ts' }));
      await expect(engine.executeExtraction(plan)).rejects.toEqual(new EngineError('validation', incrementalText(IncrementalText.nullCursorValue, 'crm.events.ts')));
    });

    it('fails as internal when a connector ignores the order, the bound, the limit or the kinds', async () => {
      const { engine, registry } = await world();
      const plan = (inc: Record<string, unknown>) => engine.planExtraction(TENANT, request(inc));
      const serve = (items: unknown[]) => {
        registry.register('memory', {
          build: () => ({
            supportsIncremental: true,
            testConnection: async () => undefined,
            discoverSchema: async () => SCHEMA,
            queryStream: async () => iterableCursor((items as never[])[Symbol.iterator]()),
            close: async () => undefined,
          }),
        });
      };
      const cases: [unknown[], Record<string, unknown>][] = [
        [[{ table: 'events', row: { id: 2, ts: 5 } }, { table: 'events', row: { id: 1, ts: 5 } }], { cursorField: 'ts' }],
        [[{ table: 'events', row: { id: 1, ts: 5 } }], { cursorField: 'ts', after: { value: '5', key: '1' } }],
        [[{ table: 'events', row: { id: 1, ts: 4 } }], { cursorField: 'ts', after: { value: '5', key: '1' } }],
        [[{ table: 'events', row: { id: 1, ts: 5 } }, { table: 'events', row: { id: 2, ts: 5 } }], { cursorField: 'ts', limit: 1 }],
        [[{ table: 'events', row: { id: 1, ts: 'five' } }], { cursorField: 'ts' }],
        [[{ table: 'events', encoded: new TextEncoder().encode('{"id":1,"ts":5}'), rowCount: 1 }], { cursorField: 'ts' }],
        // A row before a lag window's start: the connector ignored `from`.
        [[{ table: 'events', row: { id: 1, ts: 2 } }], { cursorField: 'ts', after: { value: '5', key: '1' }, lag: 2 }],
      ];
      for (const [items, inc] of cases) {
        const planned = await plan(inc);
        serve(items);
        await expect(engine.executeExtraction(planned)).rejects.toEqual(new EngineError('internal', ErrorText.stepUnexpected));
      }
    });
  });
});
