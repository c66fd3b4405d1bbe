/**
 * Chained incremental jobs over a table that keeps changing: every row version is returned exactly
 * once, and the last version each job chain returns for a row is the table's final state. The
 * table obeys the one assumption incremental extraction makes (a commit-time cursor): a row written
 * after a job started carries a cursor greater than any that job could see. Within that, rows share
 * cursor values freely, keys come in random order, and random limits cut jobs inside those ties.
 */
import fc from 'fast-check';
import type { CursorPosition, ExtractionRequest, Row, SchemaSnapshot } from '../src';
import { aWorldWith, text, TENANT } from '../src/testing/engine-fixture';

type Variant = 'integer' | 'datetime';

const schema = (variant: Variant): SchemaSnapshot => ({
  configName: 'crm',
  tables: [
    {
      name: 'events',
      fields: ['id', 'ts', 'v'],
      primaryKey: ['id'],
      columns: [
        { name: 'id', kind: 'string', nativeType: 'text', ordering: 'binary', nullable: false },
        { name: 'ts', kind: variant, nativeType: variant, nullable: false },
        { name: 'v', kind: 'integer', nativeType: 'int8' },
      ],
    },
  ],
});

/** The cursor value of logical time t, in the variant's column type (time zones vary on purpose). */
function cursorValue(variant: Variant, t: number): string | number {
  if (variant === 'integer') return t;
  const instant = new Date(Date.UTC(2026, 0, 1) + t * 1000);
  return t % 2 === 0 ? instant.toISOString() : `${instant.toISOString().slice(0, 19)}.000+00:00`;
}

type Op =
  | { readonly kind: 'insert'; readonly keys: readonly string[] }
  | { readonly kind: 'update'; readonly picks: readonly number[] }
  | { readonly kind: 'job'; readonly limit: number | undefined };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), keys: fc.array(fc.string({ minLength: 1, maxLength: 4 }), { maxLength: 6 }) }),
  fc.record({ kind: fc.constant('update' as const), picks: fc.array(fc.nat(50), { maxLength: 3 }) }),
  fc.record({ kind: fc.constant('job' as const), limit: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }) }),
);

describe('incremental job chains', () => {
  it('return every row version exactly once and end on the table’s final state', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Variant>('integer', 'datetime'),
        fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
        fc.array(op, { maxLength: 25 }),
        async (variant, encodedBatchRows, ops) => {
          const table = new Map<string, { id: string; ts: string | number; v: number }>();
          const { engine, template } = await aWorldWith(['crm'], {}, { schema: schema(variant), rows: { events: [] }, ...(encodedBatchRows ? { encodedBatchRows } : {}) });
          let clock = 0;
          let after: CursorPosition | null = null;
          const seen = new Set<string>();
          const lastVersion = new Map<string, number>();

          const job = async (limit: number | undefined): Promise<number> => {
            template.behavior = { ...template.behavior, rows: { events: [...table.values()] as Row[] } };
            const request = {
              mappedFields: { crm: { events: ['v'] } },
              incremental: { crm: { events: { cursorField: 'ts', ...(after ? { after } : {}), ...(limit ? { limit } : {}) } } },
            } as ExtractionRequest;
            const result = await engine.executeExtraction(await engine.planExtraction(TENANT, request));
            const rows = (JSON.parse(text(result.direct?.data)) as { crm: { events: { id: string; v: number }[] } }).crm.events;
            for (const row of rows) {
              const version = `${row.id}@${row.v}`;
              expect(seen.has(version)).toBe(false); // no duplicate
              seen.add(version);
              expect(row.v).toBeGreaterThan(lastVersion.get(row.id) ?? -1); // versions only move forward
              lastVersion.set(row.id, row.v);
            }
            if (limit !== undefined) expect(rows.length).toBeLessThanOrEqual(limit);
            after = result.cursors?.crm.events ?? null;
            // A row written from now on carries a later cursor than anything this job could see.
            clock++;
            return rows.length;
          };

          for (const step of ops) {
            if (step.kind === 'job') await job(step.limit);
            else if (step.kind === 'insert') {
              for (const id of step.keys) if (!table.has(id)) table.set(id, { id, ts: cursorValue(variant, clock), v: 0 });
            } else {
              const ids = [...table.keys()];
              for (const pick of step.picks) {
                if (ids.length === 0) break;
                const row = table.get(ids[pick % ids.length])!;
                table.set(row.id, { ...row, ts: cursorValue(variant, clock), v: row.v + 1 });
              }
            }
          }
          // Drain: jobs without a limit until one returns nothing (one is enough).
          await job(undefined);
          expect(await job(undefined)).toBe(0);
          expect(new Map(lastVersion)).toEqual(new Map([...table.values()].map((r) => [r.id, r.v])));
        },
      ),
      { numRuns: 200 },
    );
  });
});
