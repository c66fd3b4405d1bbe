// First: the switch must be set before any module loads the AWS SDK.
import './config/sdk-warnings';
import { runCli } from './cli';
import { loadCliConfig } from './config/cli.config';

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
