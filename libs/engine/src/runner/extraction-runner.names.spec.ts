import { aWorldWith, TENANT, text } from '../testing/engine-fixture';

describe('an extraction of tables and fields named like Object.prototype members', () => {
  it.each(['__proto__', 'constructor', 'toString'])('plans and runs a table named %s', async (name) => {
    const world = await aWorldWith(['crm'], {}, {
      rows: { [name]: [{ id: 1 }] },
      schema: { configName: 'crm', tables: [{ name, fields: ['id'] }] },
    });
    const mappedFields = { crm: {} as Record<string, string[]> };
    Object.defineProperty(mappedFields.crm, name, { value: ['id'], enumerable: true });
    const plan = await world.engine.planExtraction(TENANT, { mappedFields });
    const result = await world.engine.executeExtraction(JSON.parse(JSON.stringify(plan)));
    expect(text(result.direct?.data)).toBe(`{"crm":{${JSON.stringify(name)}:[{"id":1}]}}`);
  });
});
