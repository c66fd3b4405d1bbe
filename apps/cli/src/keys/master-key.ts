import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { failure, usageError } from '../cli-error';
import { decodeMasterKey, type CliConfig } from '../config/cli.config';
import { masterKeyPath } from '../sources/data-dir-layout';

export interface MasterKeyOptions {
  /** A path, or `-` for standard input. */
  readonly keyFile?: string;
  /** Fall back to the key a standalone service generated in this directory. */
  readonly dataDir?: string;
}

/**
 * The master key, from the first of: `--key-file`, `APP_ENC_KEY`, the data directory's generated key.
 * Messages name where the key came from, never the key.
 */
export async function resolveMasterKey(options: MasterKeyOptions, config: CliConfig, stdin: Readable): Promise<Buffer> {
  if (options.keyFile !== undefined) {
    const where = options.keyFile === '-' ? 'the key on standard input' : '--key-file';
    const text = options.keyFile === '-' ? await readAll(stdin) : await readKeyFile(options.keyFile);
    return decoded(text.trim(), where);
  }
  if (config.masterKey) return config.masterKey;
  if (options.dataDir !== undefined) {
    const path = masterKeyPath(options.dataDir);
    let text: string | undefined;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      text = undefined;
    }
    if (text !== undefined) return decoded(text.trim(), `the key file in ${options.dataDir}`);
  }
  throw usageError('no master key: set APP_ENC_KEY, pass --key-file FILE (or - for stdin), or point FETCHER_DATA_DIR at a standalone data directory');
}

function decoded(text: string, where: string): Buffer {
  const problems: string[] = [];
  const key = decodeMasterKey(text === '' ? undefined : text, where, problems);
  if (key) return key;
  throw usageError(problems[0] ?? `${where}: is empty`);
}

async function readKeyFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw code === 'ENOENT' ? usageError(`--key-file: no such file: ${path}`) : failure(`--key-file: cannot read ${path}`);
  }
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
