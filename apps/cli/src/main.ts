import { runCli } from './cli';
import { loadCliConfig } from './config/cli.config';

// The AWS SDK warns on every run under Node 20 about its future support policy; in a command
// whose stderr users read, that paragraph buries the one line that matters.
const emitWarning = process.emitWarning.bind(process);
process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
  if (type === 'NodeVersionSupportWarning' || (warning instanceof Error && warning.name === 'NodeVersionSupportWarning')) return;
  (emitWarning as (...args: unknown[]) => void)(warning, ...rest);
});

// The CLI's only reads of process.env and argv; everything below gets them as arguments.
runCli(process.argv.slice(2), () => loadCliConfig(process.env, process.cwd()), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
}).then(
  (code) => {
    process.exitCode = code;
  },
  () => {
    process.stderr.write('fetcher: failed: unexpected error\n');
    process.exitCode = 3;
  },
);
