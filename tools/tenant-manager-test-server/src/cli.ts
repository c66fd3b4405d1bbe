#!/usr/bin/env node
import { runCli } from './run-cli';

/**
 * `npm run tenant-manager:test-server -- --port 8080 --tenants tenants.json`: prints the ready line
 * once listening, and exits 0 after closing on SIGTERM or SIGINT.
 */
async function main(): Promise<void> {
  const server = await runCli(process.argv.slice(2), (line) => process.stdout.write(line));
  const stop = (): void => {
    server.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // npm starts this under `sh -c "build && node cli.js"`; that shell dies on SIGTERM without passing
  // it on. Being re-parented is how that shows, so treat it like SIGTERM.
  const launcher = process.ppid;
  setInterval(() => {
    if (process.ppid !== launcher) stop();
  }, 250).unref();
}

main().catch((error: unknown) => {
  process.stderr.write(`tenant-manager-test-server: ${error instanceof Error ? error.message : 'failed to start'}\n`);
  process.exit(1);
});
