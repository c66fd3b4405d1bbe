// First: it must be in place before the modules below load the AWS SDK.
import './config/sdk-warnings';
import 'reflect-metadata';
import { resolve } from 'node:path';
import { ConfigError } from '@fetcher/platform';
import { banner } from './banner';
import { DEFAULT_DATA_DIR, loadStandaloneConfig } from './config/standalone.config';
import { startStandalone } from './standalone';

/** Jobs in flight get this long to finish when the process is asked to stop. */
const SHUTDOWN_BOUND_MS = 60_000;

async function main(): Promise<void> {
  const config = loadStandaloneConfig(process.env, process.cwd()); // the app's only read of process.env
  const service = await startStandalone(config);
  process.stdout.write(banner({ baseUrl: service.baseUrl, dataDir: service.dataDir, keyOrigin: service.keyOrigin, console: service.console, ...(service.demo ? { demo: service.demo } : {}), startupMs: performance.now() /* since the process started */, defaultDataDir: service.dataDir === resolve(process.cwd(), DEFAULT_DATA_DIR) }));

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    // Jobs in flight finish and every write reaches the disk before the process ends.
    const deadline = setTimeout(() => {
      process.stderr.write('fetcher: shutdown took too long; exiting\n');
      process.exit(1);
    }, SHUTDOWN_BOUND_MS);
    deadline.unref();
    service.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  const message = error instanceof ConfigError ? error.problems.join('; ') : error instanceof Error ? error.message : 'unknown error';
  process.stderr.write(`fetcher: startup failed: ${message.replace(/\/\/[^@/\s]*@/g, '//[REDACTED]@')}\n`);
  process.exit(1);
});
