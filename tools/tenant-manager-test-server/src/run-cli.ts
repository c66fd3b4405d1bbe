import { parseCliArgs } from './cli-args';
import { startTenantManagerTestServer, type TenantManagerTestServer } from './server/tenant-manager-test-server';
import { readTenantsFile } from './tenants-file';

/** The line a launcher waits for; nothing else is written to stdout. */
export const readyLine = (url: string): string => `tenant-manager test server listening on ${url}`;

/** What `cli.ts` does, without touching the process: parse, read the file, listen, print the ready line. */
export async function runCli(argv: readonly string[], write: (line: string) => void): Promise<TenantManagerTestServer> {
  const args = parseCliArgs(argv);
  const tenants = await readTenantsFile(args.tenantsFile);
  const server = await startTenantManagerTestServer({ tenants, port: args.port, host: args.host });
  write(`${readyLine(server.url)}\n`);
  return server;
}
