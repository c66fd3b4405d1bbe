import { resolve } from 'node:path';
import { ConfigError, envReader, MIN_MASTER_KEY_BYTES } from '@fetcher/platform';

/** Where results live in S3-compatible storage; the same variables and client settings as the Worker's. */
export interface ObjectStorageConfig {
  readonly bucket: string;
  readonly region: string;
  readonly endpoint?: string;
  readonly keyPrefix: string;
  readonly forcePathStyle: boolean;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

export interface CliConfig {
  /** The master key from `APP_ENC_KEY`, when set. */
  readonly masterKey?: Buffer;
  /** The standalone data directory (`FETCHER_DATA_DIR`, default `./.fetcher-data`), absolute. */
  readonly dataDir: string;
  /** Present when `OBJECT_STORAGE_BUCKET` is set. */
  readonly objectStorage?: ObjectStorageConfig;
  /** The Manager the `jobs` commands call (`FETCHER_MANAGER_URL`, default `http://localhost:4006`). */
  readonly managerUrl: string;
  /** Sent as `Authorization: Bearer …` when set (`FETCHER_MANAGER_TOKEN`). */
  readonly managerToken?: string;
}

export const DEFAULT_MANAGER_URL = 'http://localhost:4006';

export const DEFAULT_DATA_DIR = '.fetcher-data';

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const BOOLEAN: Readonly<Record<string, boolean>> = { true: true, t: true, '1': true, false: false, f: false, '0': false };

/**
 * Reads the CLI's variables once. Every problem is collected as `VARIABLE: rule` and thrown as one
 * `ConfigError`; no message ever contains a value, because values may be keys or secrets.
 */
export function loadCliConfig(env: Readonly<Record<string, string | undefined>>, cwd: string): CliConfig {
  const read = envReader(env);
  const problems: string[] = [];

  const masterKey = decodeMasterKey(read('APP_ENC_KEY'), 'APP_ENC_KEY', problems);
  const dataDir = resolve(cwd, read('FETCHER_DATA_DIR') ?? DEFAULT_DATA_DIR);

  let objectStorage: ObjectStorageConfig | undefined;
  const bucket = read('OBJECT_STORAGE_BUCKET');
  const endpoint = read('OBJECT_STORAGE_ENDPOINT');
  if (endpoint !== undefined && !isHttpUrl(endpoint)) problems.push('OBJECT_STORAGE_ENDPOINT: must be an http(s) URL without credentials');
  const pathStyleText = read('OBJECT_STORAGE_USE_PATH_STYLE')?.toLowerCase();
  const forcePathStyle = pathStyleText === undefined ? false : BOOLEAN[pathStyleText];
  if (forcePathStyle === undefined) problems.push('OBJECT_STORAGE_USE_PATH_STYLE: must be true, false, 1, 0, t or f');
  const accessKeyId = read('OBJECT_STORAGE_ACCESS_KEY_ID');
  const secretAccessKey = read('OBJECT_STORAGE_SECRET_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    problems.push('OBJECT_STORAGE_ACCESS_KEY_ID: must be set together with OBJECT_STORAGE_SECRET_KEY');
  }
  if (bucket !== undefined) {
    objectStorage = Object.freeze({
      bucket,
      region: read('OBJECT_STORAGE_REGION') ?? 'us-east-1',
      ...(endpoint !== undefined ? { endpoint } : {}),
      keyPrefix: env.OBJECT_STORAGE_KEY_PREFIX ?? '',
      forcePathStyle: forcePathStyle ?? false,
      ...(accessKeyId !== undefined && secretAccessKey !== undefined ? { credentials: Object.freeze({ accessKeyId, secretAccessKey }) } : {}),
    });
  }

  const managerUrl = read('FETCHER_MANAGER_URL') ?? DEFAULT_MANAGER_URL;
  if (!isHttpUrl(managerUrl)) problems.push('FETCHER_MANAGER_URL: must be an http(s) URL without credentials');
  const managerToken = read('FETCHER_MANAGER_TOKEN');

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    ...(masterKey ? { masterKey } : {}),
    dataDir,
    ...(objectStorage ? { objectStorage } : {}),
    managerUrl,
    ...(managerToken !== undefined ? { managerToken } : {}),
  });
}

/** Strict standard base64 of at least 32 bytes, as the services require; `where` names the source, never the value. */
export function decodeMasterKey(text: string | undefined, where: string, problems: string[]): Buffer | undefined {
  if (text === undefined) return undefined;
  if (!STRICT_BASE64.test(text)) {
    problems.push(`${where}: must be standard base64`);
    return undefined;
  }
  const key = Buffer.from(text, 'base64');
  if (key.length < MIN_MASTER_KEY_BYTES) {
    problems.push(`${where}: must decode to at least ${MIN_MASTER_KEY_BYTES} bytes`);
    return undefined;
  }
  return key;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}
