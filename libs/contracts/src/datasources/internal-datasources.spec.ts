import { readInternalDatasources } from './internal-datasources';

type Type = 'POSTGRESQL' | 'MYSQL';
const rules = {
  parseType: (text: string): Type | undefined => (['POSTGRESQL', 'MYSQL'] as const).find((t) => t === text.toUpperCase()),
  sslModesFor: (type: Type) => (type === 'POSTGRESQL' ? ['disable', 'verify-full'] : ['true']),
};
const group = (x: string, fields: Record<string, string>) => Object.fromEntries(Object.entries(fields).map(([k, v]) => [`DATASOURCE_${x}_${k}`, v]));
const ledger = { CONFIG_NAME: 'ledger', TYPE: 'postgresql', HOST: 'db', DATABASE: 'app' };

describe('the DATASOURCE_<X>_* parser', () => {
  it('reads a group with every field', () => {
    const env = group('A', { ...ledger, PORT: '5433', USER: ' u ', PASSWORD: ' p w ', OPTIONS: 'a=1&b=%20x&a=2', SSLMODE: 'verify-full', SSL_CA: 'CA', SSL_KEY: 'K' });
    expect(readInternalDatasources(env, rules)).toEqual({
      datasources: [
        {
          configName: 'ledger', type: 'POSTGRESQL', host: 'db', port: 5433, databaseName: 'app', userName: 'u', password: ' p w ',
          sslMode: 'verify-full', ssl: { ca: 'CA', key: 'K' }, metadata: { a: '1', b: ' x' },
        },
      ],
      warnings: [],
      skipped: [],
    });
  });

  it('leaves out what is unset or blank', () => {
    const [only] = readInternalDatasources(group('A', { ...ledger, PASSWORD: '  ', SSLMODE: ' ' }), rules).datasources;
    expect(only).toEqual({ configName: 'ledger', type: 'POSTGRESQL', host: 'db', port: 0, databaseName: 'app', userName: '', metadata: {} });
  });

  it('takes the SSL modes from the rules it is given, not a list of its own', () => {
    const env = group('A', { ...ledger, TYPE: 'MYSQL', SSLMODE: 'true' });
    expect(readInternalDatasources(env, rules).datasources).toHaveLength(1);
    expect(readInternalDatasources(env, { ...rules, sslModesFor: () => ['false'] })).toMatchObject({
      datasources: [],
      warnings: ['DATASOURCE_A_SSLMODE: not supported for MYSQL; group skipped'],
      skipped: ['DATASOURCE_A'],
    });
  });

  it('skips bad groups with a warning naming the variable, never the value', () => {
    const env = {
      ...group('A', { ...ledger, CONFIG_NAME: 'no spaces allowed' }),
      ...group('B', { ...ledger, TYPE: 'nosql' }),
      ...group('C', { ...ledger, HOST: '' }),
      ...group('D', { ...ledger, PORT: 'x' }),
    };
    expect(readInternalDatasources(env, rules)).toEqual({
      datasources: [expect.objectContaining({ configName: 'ledger', port: 0 })],
      warnings: [
        'DATASOURCE_A_CONFIG_NAME: not a valid config name; group skipped',
        'DATASOURCE_B_TYPE: unknown datasource type; group skipped',
        'DATASOURCE_C: host and database are required; group skipped',
        'DATASOURCE_D_PORT: not a port; kept as 0',
      ],
      skipped: ['DATASOURCE_A', 'DATASOURCE_B', 'DATASOURCE_C'],
    });
  });

  it('keeps the first group of a config name, in group-name order', () => {
    const env = { ...group('B', { ...ledger, HOST: 'second' }), ...group('A', { ...ledger, HOST: 'first' }) };
    expect(readInternalDatasources(env, rules).datasources.map((d) => d.host)).toEqual(['first']);
  });

  it('ignores variables that only look like a group', () => {
    expect(readInternalDatasources({ DATASOURCE__CONFIG_NAME: 'x', DATASOURCE_CONFIG_NAME: 'y' }, rules).datasources).toEqual([]);
  });
});
