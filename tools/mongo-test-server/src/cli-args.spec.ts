import { parseCliArgs } from './cli-args';

describe(parseCliArgs.name, () => {
  it('reads --port and --host, separated or with =', () => {
    expect(parseCliArgs(['--port', '27018', '--host=0.0.0.0'])).toEqual({ port: 27018, host: '0.0.0.0' });
    expect(parseCliArgs(['--port=0'])).toEqual({ port: 0, host: undefined });
    expect(parseCliArgs([])).toEqual({ port: undefined, host: undefined });
  });

  it.each([[['--port', 'abc']], [['--port', '70000']], [['--port']], [['--verbose', 'x']]])('rejects %j', (argv) => {
    expect(() => parseCliArgs(argv)).toThrow(Error);
  });
});
