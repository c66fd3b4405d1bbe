import { IncrementalText, incrementalProblem, type TableSchema } from '../index';

const ORDERS: TableSchema = {
  name: 'orders',
  fields: ['id', 'updated_at', 'doc', 'maybe'],
  primaryKey: ['id'],
  columns: [
    { name: 'id', kind: 'integer', nativeType: 'int8', nullable: false },
    { name: 'updated_at', kind: 'datetime', nativeType: 'timestamptz', nullable: false },
    { name: 'doc', kind: 'json', nativeType: 'jsonb', nullable: true },
    { name: 'maybe', kind: 'integer', nativeType: 'int8', nullable: true },
  ],
};
const LOGS: TableSchema = { name: 'logs', fields: ['seq', 'at'], columns: [{ name: 'at', kind: 'integer', nativeType: 'int8' }] };

const mapped = { crm: { orders: ['*'], logs: ['seq'] } };
const schemas = (config: string) => (config === 'crm' ? (table: string) => [ORDERS, LOGS].find((t) => t.name === table) : undefined);
const check = (spec: unknown, withSchema = true) => incrementalProblem(mapped, { crm: { orders: spec } }, withSchema ? schemas : undefined);

describe('incrementalProblem', () => {
  it('accepts a valid request, absent incremental and a position in the form cursors report', () => {
    expect(incrementalProblem(mapped, undefined, schemas)).toBeUndefined();
    expect(check({ cursorField: 'updated_at' })).toBeUndefined();
    expect(check({ cursorField: 'updated_at', after: { value: '2026-01-01T00:00:00Z', key: '7' }, limit: 10 })).toBeUndefined();
  });

  it('names the reason and the table or field of each refusal, as data and as the planner text', () => {
    expect(check({ cursorField: 'doc' })).toEqual({
      reason: IncrementalText.notOrderable,
      configName: 'crm',
      table: 'orders',
      field: 'doc',
      message: `${IncrementalText.notOrderable}: crm.orders.doc`,
    });
    expect(check({ cursorField: 'maybe' })?.reason).toBe(IncrementalText.nullableCursor);
    expect(check({ cursorField: 'maybe', nulls: 'first' })).toBeUndefined();
    expect(check({ cursorField: 'nope' })).toMatchObject({ reason: IncrementalText.cursorNotFound, field: 'nope' });
    expect(check({ cursorField: 'updated_at', after: { value: 'yesterday', key: '1' } })).toMatchObject({ reason: IncrementalText.afterInvalid, table: 'orders' });
    expect(incrementalProblem(mapped, { crm: { logs: { cursorField: 'at' } } }, schemas)).toMatchObject({ reason: IncrementalText.noTieBreaker, table: 'logs' });
  });

  it('checks the shape without a schema, and skips the schema of a config the host cannot read', () => {
    expect(check({ cursorField: 'doc' }, false)).toBeUndefined();
    expect(check({ cursorField: '' }, false)).toMatchObject({ reason: IncrementalText.invalid, table: 'orders' });
    expect(check({ cursorField: 'updated_at', lagg: 1 }, false)?.reason).toBe(IncrementalText.invalid);
    expect(check({ cursorField: 'updated_at', limit: 0 }, false)?.reason).toBe(IncrementalText.limitInvalid);
    expect(incrementalProblem(mapped, { crm: { users: { cursorField: 'x' } } })).toMatchObject({ reason: IncrementalText.notMapped, table: 'users' });
    expect(incrementalProblem(mapped, [])).toEqual({ reason: IncrementalText.invalid, message: `${IncrementalText.invalid}: incremental` });
    expect(incrementalProblem(mapped, { crm: { orders: { cursorField: 'doc' } } }, () => undefined)).toBeUndefined();
  });
});
