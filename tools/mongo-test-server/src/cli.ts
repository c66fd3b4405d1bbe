#!/usr/bin/env node
import { parseCliArgs } from './cli-args';
import { startMongoTestServer } from './server/mongo-test-server';

/**
 * `npm run mongo:test-server -- --port 27017`: prints exactly the URI line once listening, so a
 * script can wait for it, and exits 0 after closing on SIGTERM or SIGINT.
 */
async function main(): Promise<void> {
  const server = await startMongoTestServer(parseCliArgs(process.argv.slice(2)));
  process.stdout.write(`${server.uri}\n`);
  const stop = (): void => {
    server.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // `npm run mongo:test-server` starts this under `sh -c "build && node cli.js"`. npm hands SIGTERM
  // to that shell, which dies without passing it on, so the server would outlive its launcher.
  // Being re-parented is how that shows; treat it like SIGTERM.
  const launcher = process.ppid;
  setInterval(() => {
    if (process.ppid !== launcher) stop();
  }, 250).unref();
}

main().catch((error: unknown) => {
  process.stderr.write(`mongo-test-server: ${error instanceof Error ? error.message : 'failed to start'}\n`);
  process.exit(1);
});
