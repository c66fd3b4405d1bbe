import { parseCliArgs } from './cli-args';

describe(parseCliArgs.name, () => {
  it('reads --port, --host and --tenants, separated or with =', () => {
    expect(parseCliArgs(['--port', '8080', '--tenants=t.json', '--host', '0.0.0.0'])).toEqual({ port: 8080, host: '0.0.0.0', tenantsFile: 't.json' });
    expect(parseCliArgs(['--tenants', 't.json'])).toEqual({ port: undefined, host: undefined, tenantsFile: 't.json' });
  });

  it.each([
    [['--port', '1', '--tenants', 't.json', '--port', 'abc']],
    [['--port', '70000', '--tenants', 't.json']],
    [['--tenants']],
    [['--port', '0']],
    [['--tenants', 't.json', '--verbose', 'x']],
  ])('rejects %j', (argv) => {
    expect(() => parseCliArgs(argv)).toThrow(Error);
  });
});
