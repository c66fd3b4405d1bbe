import { readFileSync } from 'node:fs';
import { parseEnv as parseDotEnv } from 'node:util';

export interface DotEnvOptions {
  /** `ENV_NAME` when unset: the Manager treats that as `local`, the Worker as production. */
  readonly defaultEnvName?: string;
  readonly path?: string;
}

/**
 * Loads `.env` into `env` only when `ENV_NAME` is `local`, so a stray file in a production image
 * cannot change its configuration. Variables already set win over the file; a missing file is fine.
 * Returns the names it added.
 */
export function loadDotEnvIfLocal(env: Record<string, string | undefined>, options: DotEnvOptions = {}): string[] {
  const name = (env.ENV_NAME ?? '').trim() === '' ? options.defaultEnvName : env.ENV_NAME;
  if ((name ?? '').trim().toLowerCase() !== 'local') return [];
  let text: string;
  try {
    text = readFileSync(options.path ?? '.env', 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const added: string[] = [];
  for (const [key, value] of Object.entries(parseDotEnv(text))) {
    if (value !== undefined && env[key] === undefined) {
      env[key] = value;
      added.push(key);
    }
  }
  return added;
}
