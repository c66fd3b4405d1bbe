import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, ResultIntegrityError } from '@fetcher/platform';
import { CliError, EXIT, usageError, type ExitCode } from './cli-error';
import { JOBS_CANCEL_HELP, JOBS_LIST_HELP, jobsCancel, jobsList } from './commands/jobs.command';
import { KEYS_DERIVE_HELP, keysDerive } from './commands/keys-derive.command';
import { RESULT_DECRYPT_HELP, resultDecrypt } from './commands/result-decrypt.command';
import { RESULT_VERIFY_HELP, resultVerify } from './commands/result-verify.command';
import { TOKENS_KEYGEN_HELP, TOKENS_SIGN_HELP, tokensKeygen, tokensSign } from './commands/tokens.command';
import type { CliConfig } from './config/cli.config';
import type { CliIo } from './io';

export const MAIN_HELP = `Usage: fetcher <command> [options]

Tools for Fetcher's keys, extraction results, jobs and multi-tenant tokens.

Commands:
  keys derive              print the four sub-keys derived from a master key
  result decrypt [JOB_ID]  decrypt a stored result, check its HMAC, print the JSON
  result verify [JOB_ID]   check a stored result's authenticity and HMAC without printing it
  jobs list                list a Manager's jobs, newest first
  jobs cancel JOB_ID       cancel a job on a Manager
  tokens keygen            make a key pair (and JWKS) for multi-tenant tokens
  tokens sign              sign a multi-tenant token for a tenant id
  help [COMMAND]           show help for a command

Options:
  -h, --help               show help (also after a command)
  -v, --version            show the version

Environment:
  APP_ENC_KEY              the master key (standard base64, at least 32 bytes)
  FETCHER_DATA_DIR         the standalone data directory (default ./.fetcher-data)
  OBJECT_STORAGE_BUCKET    read results from S3-compatible storage; with OBJECT_STORAGE_ENDPOINT,
                           _REGION, _KEY_PREFIX, _USE_PATH_STYLE, _ACCESS_KEY_ID, _SECRET_KEY
  FETCHER_MANAGER_URL      the Manager of the jobs commands (default http://localhost:4006)
  FETCHER_MANAGER_TOKEN    sent to it as a bearer token

Exit status:
  0 success, 1 the result failed authentication or its HMAC did not match,
  2 usage or configuration error, 3 any other failure (missing result, unreachable storage,
  a Manager that refused the request or cannot be reached)
`;

type Command = (args: readonly string[], config: () => CliConfig, io: CliIo) => Promise<ExitCode>;

const COMMANDS: Readonly<Record<string, { run: Command; help: string }>> = {
  'keys derive': { run: keysDerive, help: KEYS_DERIVE_HELP },
  'result decrypt': { run: resultDecrypt, help: RESULT_DECRYPT_HELP },
  'result verify': { run: resultVerify, help: RESULT_VERIFY_HELP },
  'jobs list': { run: jobsList, help: JOBS_LIST_HELP },
  'jobs cancel': { run: jobsCancel, help: JOBS_CANCEL_HELP },
  'tokens keygen': { run: tokensKeygen, help: TOKENS_KEYGEN_HELP },
  'tokens sign': { run: tokensSign, help: TOKENS_SIGN_HELP },
};
const GROUPS = new Set(['keys', 'result', 'jobs', 'tokens']);

/** The help of every command of a group (`fetcher help result`, `fetcher result --help`). */
function groupHelp(group: string): string {
  return Object.entries(COMMANDS)
    .filter(([name]) => name.startsWith(`${group} `))
    .map(([, command]) => command.help)
    .join('\n');
}

function subCommands(group: string): string {
  return Object.keys(COMMANDS)
    .filter((name) => name.startsWith(`${group} `))
    .map((name) => name.slice(group.length + 1))
    .join(', ');
}

/**
 * Runs one invocation and answers its exit status. Every failure becomes one `fetcher: …` line on
 * stderr; no stack trace, key or plaintext ever reaches the terminal. `loadConfig` runs at most once,
 * and only for commands that need it, so `--help` works even with a broken environment.
 */
export async function runCli(argv: readonly string[], loadConfig: () => CliConfig, io: CliIo): Promise<ExitCode> {
  let config: CliConfig | undefined;
  const once = (): CliConfig => (config ??= loadConfig());
  try {
    return await dispatch(argv, once, io);
  } catch (error) {
    if (error instanceof CliError) {
      io.stderr.write(`fetcher: ${error.message}\n`);
      if (error.exitCode === EXIT.usage) io.stderr.write("Run 'fetcher --help' for usage.\n");
      return error.exitCode;
    }
    if (error instanceof ResultIntegrityError) {
      io.stderr.write(`fetcher: ${error.message}\n`);
      return EXIT.integrity;
    }
    if (error instanceof ConfigError) {
      io.stderr.write(`fetcher: ${error.problems.join('\nfetcher: ')}\n`);
      return EXIT.usage;
    }
    io.stderr.write(`fetcher: failed: ${describe(error)}\n`);
    return EXIT.failure;
  }
}

async function dispatch(argv: readonly string[], config: () => CliConfig, io: CliIo): Promise<ExitCode> {
  const [first, second, ...rest] = argv;
  // No command at all is a usage error: the help goes to stderr, so that a script that forgot its
  // arguments neither succeeds nor feeds the help text to the next command of a pipe.
  if (first === undefined) {
    io.stderr.write(MAIN_HELP);
    return EXIT.usage;
  }
  if (first === '-h' || first === '--help') return print(io, MAIN_HELP);
  if (first === '-v' || first === '--version') return print(io, `${version()}\n`);
  if (first === 'help') {
    const topic = [second, ...rest].filter((x) => x !== undefined).join(' ');
    if (topic === '') return print(io, MAIN_HELP);
    if (GROUPS.has(topic)) return print(io, groupHelp(topic));
    const command = COMMANDS[topic];
    if (!command) throw usageError(`help: unknown command '${topic}'`);
    return print(io, command.help);
  }
  if (!GROUPS.has(first)) throw usageError(`unknown command '${first}'`);
  if (second === '-h' || second === '--help') return print(io, groupHelp(first));
  if (second === undefined) throw usageError(`${first}: give a sub-command: ${subCommands(first)}`);
  const name = `${first} ${second}`;
  const command = COMMANDS[name];
  if (!command) throw usageError(`unknown command '${name}' (the ${first} commands: ${subCommands(first)})`);
  if (rest.includes('-h') || rest.includes('--help')) return print(io, command.help);
  return command.run(rest, config, io);
}

function print(io: CliIo, text: string): ExitCode {
  io.stdout.write(text);
  return EXIT.ok;
}

function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** System errors are described by their code only: their messages can quote paths and hosts at length. */
function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return code === 'EPIPE' ? 'the output was closed early' : `system error ${code}`;
  return 'unexpected error';
}
