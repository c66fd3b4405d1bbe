/** An operator-configured datasource (`DATASOURCE_<X>_*`): plaintext credentials from the environment, never stored. */
export interface InternalDatasourceSettings<T extends string = string> {
  readonly configName: string;
  readonly type: T;
  readonly host: string;
  readonly port: number;
  readonly databaseName: string;
  readonly userName: string;
  /** Absent when unset or blank; otherwise exactly as given (a password may begin or end with a space). */
  readonly password?: string;
  readonly sslMode?: string;
  readonly ssl?: { readonly ca?: string; readonly cert?: string; readonly key?: string };
  readonly metadata: Readonly<Record<string, string>>;
}

/** What the groups are checked against: the datasource types and their SSL modes, from the connectors' registry. */
export interface InternalDatasourceRules<T extends string> {
  /** The type for a `_TYPE` value (case-insensitive), or undefined when unknown. */
  readonly parseType: (text: string) => T | undefined;
  readonly sslModesFor: (type: T) => readonly string[] | undefined;
}

export interface InternalDatasourcesResult<T extends string> {
  readonly datasources: readonly InternalDatasourceSettings<T>[];
  /** One line per problem, naming the variable and never its value. */
  readonly warnings: readonly string[];
  /** The groups left out (`DATASOURCE_<X>`). */
  readonly skipped: readonly string[];
}

const PREFIX = 'DATASOURCE_';
const SUFFIX = '_CONFIG_NAME';
/** The config names the Manager accepts for stored connections too. */
const CONFIG_NAME = /^[a-zA-Z0-9_-]{3,100}$/;

/**
 * Reads the `DATASOURCE_<X>_*` groups. A group without a valid config name, type, host or database,
 * or with an SSL mode its type does not allow, is skipped with a warning; a bad port is kept as 0
 * with a warning. Groups are read in name order and the first group with a given config name wins,
 * so the result does not depend on the order of the environment. Blank values count as unset.
 */
export function readInternalDatasources<T extends string>(
  env: Readonly<Record<string, string | undefined>>,
  rules: InternalDatasourceRules<T>,
): InternalDatasourcesResult<T> {
  const groups = Object.keys(env)
    .filter((key) => key.startsWith(PREFIX) && key.endsWith(SUFFIX) && key.length > PREFIX.length + SUFFIX.length)
    .map((key) => key.slice(0, -SUFFIX.length))
    .sort();
  const warnings: string[] = [];
  const skipped: string[] = [];
  const datasources: InternalDatasourceSettings<T>[] = [];
  const skip = (group: string, warning: string) => {
    warnings.push(warning);
    skipped.push(group);
  };
  for (const group of groups) {
    const raw = (field: string) => env[`${group}_${field}`];
    const value = (field: string) => {
      const text = raw(field)?.trim();
      return text === undefined || text === '' ? undefined : text;
    };
    const configName = value('CONFIG_NAME');
    if (configName === undefined || !CONFIG_NAME.test(configName)) {
      if (configName !== undefined) skip(group, `${group}_CONFIG_NAME: not a valid config name; group skipped`);
      continue;
    }
    const type = rules.parseType(value('TYPE') ?? '');
    if (type === undefined) {
      skip(group, `${group}_TYPE: unknown datasource type; group skipped`);
      continue;
    }
    const host = value('HOST');
    const databaseName = value('DATABASE');
    if (host === undefined || databaseName === undefined) {
      skip(group, `${group}: host and database are required; group skipped`);
      continue;
    }
    const portText = value('PORT');
    let port = portText === undefined ? 0 : Number(portText);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) {
      warnings.push(`${group}_PORT: not a port; kept as 0`);
      port = 0;
    }
    const sslMode = value('SSLMODE');
    if (sslMode !== undefined && !(rules.sslModesFor(type) ?? []).includes(sslMode)) {
      skip(group, `${group}_SSLMODE: not supported for ${type}; group skipped`);
      continue;
    }
    if (datasources.some((d) => d.configName === configName)) continue;
    const password = raw('PASSWORD');
    const ssl = { ...optional('ca', value('SSL_CA')), ...optional('cert', value('SSL_CERT')), ...optional('key', value('SSL_KEY')) };
    datasources.push(
      Object.freeze({
        configName,
        type,
        host,
        port,
        databaseName,
        userName: value('USER') ?? '',
        ...(password !== undefined && password.trim() !== '' ? { password } : {}),
        ...(sslMode !== undefined ? { sslMode } : {}),
        ...(Object.keys(ssl).length > 0 ? { ssl: Object.freeze(ssl) } : {}),
        metadata: Object.freeze(parseOptions(value('OPTIONS'))),
      }),
    );
  }
  return { datasources, warnings, skipped };
}

/** `k=v&k=v` (URL-encoded) as connection metadata; the first of a repeated key wins. */
function parseOptions(text: string | undefined): Record<string, string> {
  if (text === undefined) return {};
  const out: Record<string, string> = {};
  for (const [key, val] of new URLSearchParams(text)) if (key !== '' && !(key in out)) out[key] = val;
  return out;
}

function optional(key: string, value: string | undefined): Record<string, string> {
  return value === undefined ? {} : { [key]: value };
}
