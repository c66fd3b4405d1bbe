import { POSTGRES_DIALECT } from '../sql/dialect';
import { FieldRender, copyPlan, type CopyColumnSource } from './copy-columns.postgres';

const column = (name: string, udtName: string, dataType = udtName): CopyColumnSource => ({ name, catalogName: name, udtName, dataType });

describe(copyPlan.name, () => {
  it('selects cheap binary forms raw, printed types as text, and keeps the order given', () => {
    const plan = copyPlan(POSTGRES_DIALECT, '"s"."T"', [
      column('Id', 'int8'),
      column('amount', 'numeric'),
      column('at', 'timestamptz', 'timestamp with time zone'),
      column('flag', 'bool', 'boolean'),
      column('name', 'text'),
      column('raw', 'bytea'),
      column('tags', '_text', 'ARRAY'),
    ]);
    expect(plan.sql).toBe(
      'COPY (SELECT "Id", "amount"::text, "at"::text, "flag", "name", "raw", "tags"::text FROM "s"."T") TO STDOUT (FORMAT binary)',
    );
    expect(plan.fields.map((f) => [f.name, f.render])).toEqual([
      ['Id', FieldRender.int8],
      ['amount', FieldRender.quoted],
      ['at', FieldRender.timestamptz],
      ['flag', FieldRender.bool],
      ['name', FieldRender.string],
      ['raw', FieldRender.bytea],
      ['tags', FieldRender.convert],
    ]);
  });

  it('uses the output function, NULL kept, for types whose text cast has its own format and for user-defined types', () => {
    const plan = copyPlan(POSTGRES_DIALECT, 't', [column('ip', 'inet'), column('mood', 'mood', 'USER-DEFINED'), column('c', 'char', '"char"')]);
    expect(plan.sql).toBe(
      `COPY (SELECT CASE WHEN "ip" IS NULL THEN NULL ELSE format('%s', "ip") END, ` +
        `CASE WHEN "mood" IS NULL THEN NULL ELSE format('%s', "mood") END, ` +
        `CASE WHEN "c" IS NULL THEN NULL ELSE format('%s', "c") END FROM t) TO STDOUT (FORMAT binary)`,
    );
    expect(plan.fields.every((f) => f.render === FieldRender.string)).toBe(true);
  });

  it('keeps bpchar raw, since a text cast would trim its padding', () => {
    expect(copyPlan(POSTGRES_DIALECT, 't', [column('code', 'bpchar', 'character')]).sql).toBe('COPY (SELECT "code" FROM t) TO STDOUT (FORMAT binary)');
  });

  it('quotes catalog names and keys rows by the snapshot name', () => {
    const plan = copyPlan(POSTGRES_DIALECT, 't', [{ name: 'we"ird', catalogName: 'we"ird', udtName: 'float4', dataType: 'real' }]);
    expect(plan.sql).toBe('COPY (SELECT "we""ird"::text FROM t) TO STDOUT (FORMAT binary)');
    expect(plan.fields[0]).toMatchObject({ name: 'we"ird', render: FieldRender.convert });
  });
});
