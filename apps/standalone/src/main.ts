import 'reflect-metadata';
import { ConfigError } from '@fetcher/platform';
import { banner } from './banner';
import { loadStandaloneConfig } from './config/standalone.config';
import { startStandalone } from './standalone';

// The AWS SDK (loaded by the Worker's S3 adapter, unused here) warns on every start under Node 20
// about its future support policy; in the first screen a newcomer sees, that buries the banner.
const emitWarning = process.emitWarning.bind(process);
process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
  if (type === 'NodeVersionSupportWarning' || (warning instanceof Error && warning.name === 'NodeVersionSupportWarning')) return;
  (emitWarning as (...args: unknown[]) => void)(warning, ...rest);
});

async function main(): Promise<void> {
  const started = Date.now();
  const config = loadStandaloneConfig(process.env, process.cwd()); // the app's only read of process.env
  const service = await startStandalone(config);
  process.stdout.write(banner({ baseUrl: service.baseUrl, dataDir: service.dataDir, keyOrigin: service.keyOrigin, ...(service.demo ? { demo: service.demo } : {}), startupMs: Date.now() - started }));

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    // Jobs in flight finish and every write reaches the disk before the process ends.
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
