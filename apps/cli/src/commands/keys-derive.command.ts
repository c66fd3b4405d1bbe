import { deriveSubKeys, SUB_KEY_INFO, type SubKeys } from '@fetcher/platform';
import { flag, parseCommandArgs, stringOption } from '../args';
import { EXIT, usageError, type ExitCode } from '../cli-error';
import type { CliConfig } from '../config/cli.config';
import type { CliIo } from '../io';
import { resolveMasterKey } from '../keys/master-key';

export const KEYS_DERIVE_HELP = `Usage: fetcher keys derive [--key-file FILE | --key-file -] [--encoding base64|hex] [--json]

Prints the four sub-keys that Fetcher derives from a master key (HKDF-SHA256, empty salt, 32 bytes
each), for operators who configure result consumers or check a deployment. The output is secret.

The master key is read from --key-file (a file, or - for standard input), else from APP_ENC_KEY,
else from the standalone data directory (FETCHER_DATA_DIR, default ./.fetcher-data).

Options:
  --key-file FILE     read the master key (standard base64) from FILE, or from stdin with -
  --encoding ENC      base64 (default) or hex
  --json              one JSON object instead of a table
  -h, --help          show this help

Sub-keys:
  credentials     ${SUB_KEY_INFO.credentials}         encrypts stored datasource credentials
  internal-hmac   ${SUB_KEY_INFO.internalHmac}       signs job messages (Manager to Worker)
  external-hmac   ${SUB_KEY_INFO.externalHmac}       result HMAC and job-event signatures
  storage         ${SUB_KEY_INFO.storage}  encrypts stored results
`;

const OPTIONS = {
  'key-file': { type: 'string' },
  encoding: { type: 'string' },
  json: { type: 'boolean' },
} as const;

const ORDER: readonly (readonly [keyof SubKeys, string])[] = [
  ['credentials', 'credentials'],
  ['internalHmac', 'internal-hmac'],
  ['externalHmac', 'external-hmac'],
  ['storage', 'storage'],
];

export async function keysDerive(args: readonly string[], config: () => CliConfig, io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs(args, OPTIONS, 'keys derive');
  if (parsed.positionals.length > 0) throw usageError(`keys derive: unexpected argument ${parsed.positionals[0]}`);
  const encoding = stringOption(parsed, 'encoding') ?? 'base64';
  if (encoding !== 'base64' && encoding !== 'hex') throw usageError('keys derive: --encoding must be base64 or hex');

  const cfg = config();
  const keyFile = stringOption(parsed, 'key-file');
  const master = await resolveMasterKey({ ...(keyFile !== undefined ? { keyFile } : {}), dataDir: cfg.dataDir }, cfg, io.stdin);
  const keys = deriveSubKeys(master);

  if (flag(parsed, 'json')) {
    const body: Record<string, string> = { encoding };
    for (const [field, name] of ORDER) body[name] = keys[field].toString(encoding);
    io.stdout.write(`${JSON.stringify(body)}\n`);
  } else {
    for (const [field, name] of ORDER) {
      io.stdout.write(`${name.padEnd(15)} ${SUB_KEY_INFO[field].padEnd(31)} ${keys[field].toString(encoding)}\n`);
    }
  }
  if (io.stdout.isTTY) io.stderr.write('fetcher: these are secret keys; do not paste them into tickets or logs\n');
  return EXIT.ok;
}
