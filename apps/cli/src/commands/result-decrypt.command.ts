import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { decryptResult, deriveSubKeys, hmacMatches } from '@fetcher/platform';
import { flag, parseCommandArgs, stringOption } from '../args';
import { EXIT, integrityError, usageError, type ExitCode } from '../cli-error';
import type { CliConfig } from '../config/cli.config';
import { stageFile, stageForStream } from '../crypto/staged-output';
import type { CliIo } from '../io';
import { resolveMasterKey } from '../keys/master-key';
import { resolveResultTarget, TARGET_HELP, TARGET_OPTIONS } from './result-target';

export const RESULT_DECRYPT_HELP = `Usage: fetcher result decrypt [JOB_ID] [options]

Decrypts a stored extraction result (AES-256-GCM with the storage sub-key), checks the HMAC-SHA256 of
the plaintext with the external sub-key, and writes the JSON document to standard output (followed by
a newline) or --out (exactly the bytes the HMAC covers).
Nothing is written unless both checks pass: the plaintext is staged in a private temporary file first.

${TARGET_HELP}
  --skip-hmac         decrypt without an expected HMAC (the AES-GCM tag is still checked)

Output:
  --out FILE          write the JSON to FILE (atomically) instead of standard output
  -h, --help          show this help

Examples:
  npx fetcher result decrypt 0193a1b2-7c4d-7e8f-9a0b-1c2d3e4f5a6b
  npx fetcher result decrypt --file result.b64 --hmac <hex> --key-file master.key --out result.json
`;

const OPTIONS = { ...TARGET_OPTIONS, out: { type: 'string' }, 'skip-hmac': { type: 'boolean' } } as const;

export async function resultDecrypt(args: readonly string[], config: () => CliConfig, io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs(args, OPTIONS, 'result decrypt');
  const out = stringOption(parsed, 'out');
  const skipHmac = flag(parsed, 'skip-hmac');
  if (skipHmac && stringOption(parsed, 'hmac') !== undefined) throw usageError('result decrypt: --hmac and --skip-hmac exclude each other');
  if (out !== undefined) await requireDirectory(dirname(resolve(out)));

  const cfg = config();
  const target = await resolveResultTarget(parsed, cfg, 'result decrypt');
  try {
    if (target.expectedHmac === undefined && !skipHmac) {
      throw usageError("result decrypt: no HMAC to check against: pass --hmac HEX (the job's resultHmac), or --skip-hmac");
    }
    const keyFile = stringOption(parsed, 'key-file');
    const master = await resolveMasterKey({ ...(keyFile !== undefined ? { keyFile } : {}), dataDir: target.dataDir }, cfg, io.stdin);
    const keys = deriveSubKeys(master);

    const staged = out !== undefined ? stageFile(resolve(out)) : await stageForStream(io.stdout);
    try {
      const source = await target.source.open();
      const result = await decryptResult(source, staged.stream, keys);
      if (target.expectedHmac !== undefined && !hmacMatches(target.expectedHmac, result.hmac)) {
        throw integrityError(`HMAC mismatch: the decrypted result does not match the HMAC from ${target.hmacOrigin}`);
      }
      await staged.commit();
      // On standard output the document ends with a newline, so that the shell prompt (or the next
      // line of a log) does not follow it on the same line; --out gets the exact bytes the HMAC covers.
      if (out === undefined) io.stdout.write('\n');
      if (skipHmac) io.stderr.write('fetcher: note: HMAC not checked (--skip-hmac); the AES-GCM tag was verified\n');
      return EXIT.ok;
    } finally {
      await staged.discard();
    }
  } finally {
    target.close();
  }
}

async function requireDirectory(path: string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory()) throw usageError(`result decrypt: --out: no such directory: ${path}`);
}
