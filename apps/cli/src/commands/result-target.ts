import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, normalize, relative, resolve } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { stringOption, type OptionSpec, type ParsedArgs } from '../args';
import { failure, usageError } from '../cli-error';
import type { CliConfig } from '../config/cli.config';
import { jobRecordPath, objectsRoot, resultKey } from '../sources/data-dir-layout';
import { FileResultSource } from '../sources/file-result-source';
import type { ResultSource } from '../sources/result-source';
import { S3ResultSource, s3Client } from '../sources/s3-result-source';

/** The options `result decrypt` and `result verify` share. */
export const TARGET_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  file: { type: 'string' },
  from: { type: 'string' },
  'data-dir': { type: 'string' },
  tenant: { type: 'string' },
  hmac: { type: 'string' },
  'key-file': { type: 'string' },
};

export const TARGET_HELP = `Where the result is read from (first match):
  --file FILE         a stored result saved as a file (the base64 text as stored)
  --from s3           S3-compatible storage (OBJECT_STORAGE_* variables, the Worker's settings);
                      the default when OBJECT_STORAGE_BUCKET is set
  --from data-dir     the standalone data directory; the default otherwise
  --data-dir DIR      the data directory (default: FETCHER_DATA_DIR, else ./.fetcher-data)
  --tenant ID         the tenant whose prefix holds the result, when the job record is not at hand

Keys and integrity:
  --key-file FILE     the master key (standard base64); - reads it from stdin. Default: APP_ENC_KEY,
                      else the key the standalone service generated in the data directory
  --hmac HEX          the expected HMAC-SHA256 (the job's resultHmac). Default: the job record in the
                      data directory, when there is one`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HMAC_HEX = /^[0-9a-f]{64}$/i;

export interface ResultTarget {
  readonly source: ResultSource;
  /** Lower-case hex; absent when neither `--hmac` nor a job record gives one. */
  readonly expectedHmac?: string;
  /** For messages: where the expected HMAC came from. */
  readonly hmacOrigin?: string;
  /** The data directory, whose generated key is the last fallback for the master key. */
  readonly dataDir: string;
  close(): void;
}

interface JobRecordView {
  readonly status?: string;
  readonly resultPath?: string;
  readonly resultHmac?: string;
}

export async function resolveResultTarget(parsed: ParsedArgs, config: CliConfig, command: string): Promise<ResultTarget> {
  if (parsed.positionals.length > 1) throw usageError(`${command}: unexpected argument ${parsed.positionals[1]}`);
  const jobId = parsed.positionals[0];
  if (jobId !== undefined && !UUID.test(jobId)) throw usageError(`${command}: the job id must be a UUID`);
  const file = stringOption(parsed, 'file');
  if (jobId === undefined && file === undefined) throw usageError(`${command}: give a job id, or --file FILE`);

  const hmacText = stringOption(parsed, 'hmac');
  if (hmacText !== undefined && !HMAC_HEX.test(hmacText)) throw usageError(`${command}: --hmac must be 64 hexadecimal characters`);
  const from = stringOption(parsed, 'from') ?? (config.objectStorage ? 's3' : 'data-dir');
  if (from !== 's3' && from !== 'data-dir') throw usageError(`${command}: --from must be s3 or data-dir`);
  const dataDirOption = stringOption(parsed, 'data-dir');
  const dataDir = dataDirOption !== undefined ? resolve(dataDirOption) : config.dataDir;
  const tenant = stringOption(parsed, 'tenant');
  if (tenant !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(tenant)) throw usageError(`${command}: --tenant is not a valid tenant id`);

  const record = jobId !== undefined ? await readJobRecord(dataDir, jobId) : undefined;
  if (record?.status !== undefined && record.status !== 'completed') {
    throw failure(`job ${jobId} is ${record.status}; it has no result`);
  }
  const expectedHmac = hmacText?.toLowerCase() ?? record?.resultHmac?.toLowerCase();
  const hmacOrigin = hmacText !== undefined ? '--hmac' : record?.resultHmac !== undefined ? 'the job record' : undefined;
  const base = { dataDir, ...(expectedHmac !== undefined ? { expectedHmac } : {}), ...(hmacOrigin !== undefined ? { hmacOrigin } : {}) };

  if (file !== undefined) return { ...base, source: new FileResultSource(resolve(file), file), close: () => undefined };
  const key = record?.resultPath ?? resultKey(jobId, tenant);
  if (from === 'data-dir') {
    const path = await objectPath(dataDir, key);
    // Neither a job record nor a stored result: say so (exit 3) before asking for an HMAC that could
    // not help, and name the directory looked in, the usual cause being another working directory.
    if (record === undefined && !(await exists(path))) {
      throw failure(`no result for job ${jobId} in the data directory ${dataDir} (no job record, no stored result); set FETCHER_DATA_DIR or --data-dir if the service ran elsewhere`);
    }
    return { ...base, source: new FileResultSource(path), close: () => undefined };
  }

  if (!config.objectStorage) throw usageError(`${command}: --from s3 needs OBJECT_STORAGE_BUCKET (and the other OBJECT_STORAGE_* variables)`);
  const client: S3Client = s3Client(config.objectStorage);
  return { ...base, source: new S3ResultSource(client, config.objectStorage, key), close: () => client.destroy() };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** The job record a standalone service keeps; `undefined` when there is none (or it is unreadable). */
async function readJobRecord(dataDir: string, jobId: string): Promise<JobRecordView | undefined> {
  let text: string;
  try {
    text = await readFile(jobRecordPath(dataDir, jobId), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null) return undefined;
    const { status, resultPath, resultHmac } = value as Record<string, unknown>;
    return {
      ...(typeof status === 'string' ? { status } : {}),
      ...(typeof resultPath === 'string' && resultPath !== '' ? { resultPath } : {}),
      ...(typeof resultHmac === 'string' && HMAC_HEX.test(resultHmac) ? { resultHmac } : {}),
    };
  } catch {
    throw failure(`the job record of ${jobId} in ${dataDir} is not valid JSON`);
  }
}

/** The object's file below `objects/`; a stored key that climbs out of it is refused. */
async function objectPath(dataDir: string, key: string): Promise<string> {
  const root = objectsRoot(dataDir);
  const path = join(root, normalize(key.replace(/^\/+/, '')));
  const rel = relative(root, path);
  if (rel.startsWith('..') || isAbsolute(rel)) throw failure('the stored result path leaves the data directory');
  try {
    // Symbolic links could lead outside as well; compare the real paths when both exist.
    const [realRoot, realPath] = await Promise.all([realpath(root), realpath(path)]);
    const realRel = relative(realRoot, realPath);
    if (realRel.startsWith('..') || isAbsolute(realRel)) throw failure('the stored result path leaves the data directory');
  } catch (error) {
    if (error instanceof Error && 'exitCode' in error) throw error;
    // A missing file is reported by the source when it is opened.
  }
  return path;
}
