import { Writable } from 'node:stream';
import { decryptResult, deriveSubKeys, hmacMatches } from '@fetcher/platform';
import { parseCommandArgs, stringOption } from '../args';
import { EXIT, integrityError, usageError, type ExitCode } from '../cli-error';
import type { CliConfig } from '../config/cli.config';
import type { CliIo } from '../io';
import { resolveMasterKey } from '../keys/master-key';
import { resolveResultTarget, TARGET_HELP, TARGET_OPTIONS } from './result-target';

export const RESULT_VERIFY_HELP = `Usage: fetcher result verify [JOB_ID] [options]

Checks a stored extraction result without printing it: the AES-256-GCM tag (right key, unaltered
bytes) and the HMAC-SHA256 of the plaintext against the expected one. Prints one line and exits 0
when both hold, 1 when either fails.

${TARGET_HELP}
  -h, --help          show this help
`;

export async function resultVerify(args: readonly string[], config: () => CliConfig, io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs(args, TARGET_OPTIONS, 'result verify');
  const cfg = config();
  const target = await resolveResultTarget(parsed, cfg, 'result verify');
  try {
    if (target.expectedHmac === undefined) {
      throw usageError("result verify: no HMAC to check against: pass --hmac HEX (the job's resultHmac)");
    }
    const keyFile = stringOption(parsed, 'key-file');
    const master = await resolveMasterKey({ ...(keyFile !== undefined ? { keyFile } : {}), dataDir: target.dataDir }, cfg, io.stdin);
    const source = await target.source.open();
    // The plaintext is only hashed: nothing of it is kept or printed.
    const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
    const result = await decryptResult(source, discard, deriveSubKeys(master));
    if (!hmacMatches(target.expectedHmac, result.hmac)) {
      throw integrityError(`HMAC mismatch: ${target.source.description} does not match the HMAC from ${target.hmacOrigin}`);
    }
    io.stdout.write(`ok: ${target.source.description} is authentic and matches its HMAC (${result.plaintextBytes} bytes of JSON)\n`);
    return EXIT.ok;
  } finally {
    target.close();
  }
}
