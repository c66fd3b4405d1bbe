export interface CliArgs {
  readonly port?: number;
  readonly host?: string;
  readonly tenantsFile: string;
}

const USAGE = 'usage: tenant-manager-test-server --tenants <file.json> [--port N] [--host H]';

/** Parses `--port N`, `--host H` and `--tenants FILE` (each also as `--flag=value`). Throws on anything else. */
export function parseCliArgs(argv: readonly string[]): CliArgs {
  let port: number | undefined;
  let host: string | undefined;
  let tenantsFile: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--port') {
      port = Number(value);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error('--port must be an integer from 0 to 65535');
    } else if (flag === '--host') {
      host = value;
    } else if (flag === '--tenants') {
      tenantsFile = value;
    } else {
      throw new Error(`unknown argument ${flag}; ${USAGE}`);
    }
  }
  if (!tenantsFile) throw new Error(`--tenants is required; ${USAGE}`);
  return { port, host, tenantsFile };
}
