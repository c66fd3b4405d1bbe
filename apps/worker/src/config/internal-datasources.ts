import { parseDatasourceType } from '@fetcher/connectors';

/** An operator-configured datasource: plaintext credentials from the environment, never stored. */
export interface InternalDatasource {
  readonly configName: string;
  readonly type: string;
  readonly host: string;
  readonly port: number;
  readonly databaseName: string;
  readonly userName: string;
  readonly password?: string;
  readonly sslMode?: string;
  readonly ssl?: { readonly ca?: string; readonly cert?: string; readonly key?: string };
  readonly metadata: Readonly<Record<string, string>>;
}

const SSL_MODES: Readonly<Record<string, readonly string[]>> = {
  POSTGRESQL: ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'],
  MYSQL: ['false', 'true', 'skip-verify', 'preferred'],
  SQL_SERVER: ['disable', 'false', 'true', 'strict'],
  ORACLE: ['disable', 'false', 'true', 'enable', 'verify', 'skip-verify'],
  MONGODB: ['disable', 'false', 'true', 'enable', 'insecure'],
};

/**
 * Reads the `DATASOURCE_<X>_*` groups. A group without a valid type, a host or a database, or with
 * an SSL mode its type does not know, is skipped; an unparseable port is kept as 0. The first group
 * with a given config name wins. Returns the skipped group names for a warning (never values).
 */
export function loadInternalDatasources(env: Readonly<Record<string, string | undefined>>): { datasources: InternalDatasource[]; skipped: string[] } {
  const groups = new Set<string>();
  for (const name of Object.keys(env)) {
    const match = /^DATASOURCE_(.+)_CONFIG_NAME$/.exec(name);
    if (match) groups.add(match[1]);
  }
  const datasources: InternalDatasource[] = [];
  const skipped: string[] = [];
  for (const group of [...groups].sort()) {
    const read = (suffix: string): string | undefined => {
      const value = env[`DATASOURCE_${group}_${suffix}`]?.trim();
      return value === undefined || value === '' ? undefined : value;
    };
    const configName = read('CONFIG_NAME');
    const type = parseDatasourceType(read('TYPE') ?? '');
    const host = read('HOST');
    const databaseName = read('DATABASE');
    const sslMode = read('SSLMODE');
    if (!configName || !type || !host || !databaseName || (sslMode !== undefined && !SSL_MODES[type].includes(sslMode))) {
      skipped.push(`DATASOURCE_${group}`);
      continue;
    }
    if (datasources.some((d) => d.configName === configName)) continue;
    const port = Number(read('PORT') ?? '0');
    const ssl = { ca: read('SSL_CA'), cert: read('SSL_CERT'), key: read('SSL_KEY') };
    datasources.push({
      configName,
      type,
      host,
      port: Number.isInteger(port) && port > 0 && port <= 65_535 ? port : 0,
      databaseName,
      userName: read('USER') ?? '',
      ...(read('PASSWORD') !== undefined ? { password: read('PASSWORD') } : {}),
      ...(sslMode !== undefined ? { sslMode } : {}),
      ...(ssl.ca || ssl.cert || ssl.key ? { ssl } : {}),
      metadata: parseOptions(read('OPTIONS')),
    });
  }
  return { datasources, skipped };
}

/** `k=v&k=v` as connection metadata. */
function parseOptions(raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (raw ?? '').split('&')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    out[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
  }
  return out;
}
