import type { MongoTestServerOptions } from './server/mongo-test-server';

/** Parses `--port N` / `--port=N` and `--host H` / `--host=H`. Throws on anything else. */
export function parseCliArgs(argv: readonly string[]): MongoTestServerOptions {
  let port: number | undefined;
  let host: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--port') {
      port = Number(value);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error('--port must be an integer from 0 to 65535');
    } else if (flag === '--host') {
      host = value;
    } else {
      throw new Error(`unknown argument ${flag}; usage: mongo-test-server [--port N] [--host H]`);
    }
  }
  return { port, host };
}
