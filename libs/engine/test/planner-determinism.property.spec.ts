/** The planner is deterministic: key order in the request never changes the plan. */
import fc from 'fast-check';
import type { ExtractionRequest } from '../src';
import { aWorldWith, TENANT } from '../src/testing/engine-fixture';

const SCHEMA = {
  configName: 'any',
  tables: [
    { name: 'users', fields: ['id', 'name', 'email'], columns: [{ name: 'id', kind: 'integer' as const, nativeType: 'int8' }] },
    { name: 'orders', fields: ['id', 'total'] },
  ],
};
const world = (names: string[]) => aWorldWith(names, {}, { schema: SCHEMA });

describe('planExtraction determinism', () => {
  it('gives a deep-equal plan whatever the key order of the request', async () => {
    const { engine } = await world(['crm', 'erp', 'hr']);
    const tables = { users: ['id', 'name', 'email'], orders: ['total', 'id'] };
    const filters = { users: { id: { gt: [1] }, name: { eq: ['Ada'], ne: ['Bob'] } } };
    const reference = await engine.planExtraction(TENANT, { mappedFields: { crm: tables, erp: tables, hr: tables }, filters: { crm: filters } });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { minLength: 12, maxLength: 12 }), async (seeds) => {
        let s = 0;
        const shuffle = <T>(items: T[]): T[] => {
          const copy = [...items];
          for (let i = copy.length - 1; i > 0; i--) {
            const j = seeds[s++ % seeds.length] % (i + 1);
            [copy[i], copy[j]] = [copy[j], copy[i]];
          }
          return copy;
        };
        const reorder = (o: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(shuffle(Object.entries(o)));
        const mapped = reorder({ crm: reorder({ ...tables }), erp: reorder({ ...tables }), hr: reorder({ ...tables }) });
        const request = { mappedFields: mapped, filters: reorder({ crm: reorder({ users: reorder({ name: reorder(filters.users.name), id: filters.users.id }) }) }) };
        expect(await engine.planExtraction(TENANT, request as ExtractionRequest)).toEqual(reference);
      }),
      { numRuns: 25 },
    );
  });

});
