import { sslModesFor } from '@fetcher/connectors';

const TYPES = ['ORACLE', 'SQL_SERVER', 'POSTGRESQL', 'MONGODB', 'MYSQL'] as const;

/** An operator-configured datasource: never stored, listed on page 1, exempt from host safety. */
export interface InternalDatasourceConfig {
  readonly configName: string;
  readonly type: (typeof TYPES)[number];
  readonly host: string;
  readonly port: number;
  readonly databaseName: string;
  readonly userName: string;
  readonly password: string;
  readonly metadata: Readonly<Record<string, string>>;
  readonly sslMode: string;
  readonly ssl: { readonly ca?: string; readonly cert?: string; readonly key?: string };
}

export interface InternalDatasourcesResult {
  readonly datasources: readonly InternalDatasourceConfig[];
  readonly warnings: readonly string[];
}

const SUFFIX = '_CONFIG_NAME';

/**
 * Reads the `DATASOURCE_<X>_*` groups. A group without a valid type, host or database, or with an
 * SSL mode its type does not allow, is skipped with a warning; a bad port is kept as 0. Groups are
 * read in name order and the first group with a given config name wins, so the result does not
 * depend on the order of the environment.
 */
export function readInternalDatasources(env: Readonly<Record<string, string | undefined>>): InternalDatasourcesResult {
  const value = (name: string) => {
    const raw = env[name];
    return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
  };
  const groups = Object.keys(env)
    .filter((key) => key.startsWith('DATASOURCE_') && key.endsWith(SUFFIX) && key.length > 'DATASOURCE_'.length + SUFFIX.length)
    .map((key) => key.slice(0, -SUFFIX.length))
    .sort();
  const warnings: string[] = [];
  const seen = new Set<string>();
  const datasources: InternalDatasourceConfig[] = [];
  for (const group of groups) {
    const configName = value(`${group}_CONFIG_NAME`);
    if (configName === undefined || !/^[a-zA-Z0-9_-]{3,100}$/.test(configName)) {
      if (configName !== undefined) warnings.push(`${group}_CONFIG_NAME: not a valid config name; group skipped`);
      continue;
    }
    const type = TYPES.find((t) => t === value(`${group}_TYPE`)?.toUpperCase());
    if (type === undefined) {
      warnings.push(`${group}_TYPE: unknown datasource type; group skipped`);
      continue;
    }
    const host = value(`${group}_HOST`);
    const databaseName = value(`${group}_DATABASE`);
    if (host === undefined || databaseName === undefined) {
      warnings.push(`${group}: host and database are required; group skipped`);
      continue;
    }
    const portText = value(`${group}_PORT`);
    let port = portText === undefined ? 0 : Number(portText);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) {
      warnings.push(`${group}_PORT: not a port; kept as 0`);
      port = 0;
    }
    const sslMode = value(`${group}_SSLMODE`) ?? '';
    if (sslMode !== '' && !(sslModesFor(type) ?? []).includes(sslMode)) {
      warnings.push(`${group}_SSLMODE: not supported for ${type}; group skipped`);
      continue;
    }
    if (seen.has(configName)) continue;
    seen.add(configName);
    datasources.push(
      Object.freeze({
        configName,
        type,
        host,
        port,
        databaseName,
        userName: value(`${group}_USER`) ?? '',
        password: env[`${group}_PASSWORD`] ?? '',
        metadata: Object.freeze(parseOptions(value(`${group}_OPTIONS`))),
        sslMode,
        ssl: Object.freeze({
          ...optional('ca', value(`${group}_SSL_CA`)),
          ...optional('cert', value(`${group}_SSL_CERT`)),
          ...optional('key', value(`${group}_SSL_KEY`)),
        }),
      }),
    );
  }
  return { datasources, warnings };
}

/** `k=v&k=v` (URL-encoded) as connection metadata. */
function parseOptions(text: string | undefined): Record<string, string> {
  if (text === undefined) return {};
  const out: Record<string, string> = {};
  for (const [key, val] of new URLSearchParams(text)) if (key !== '' && !(key in out)) out[key] = val;
  return out;
}

function optional(key: string, value: string | undefined): Record<string, string> {
  return value === undefined ? {} : { [key]: value };
}
