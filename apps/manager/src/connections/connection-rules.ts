import { sslModesFor } from '@fetcher/connectors';
import type { FieldProblem } from '../errors/catalogue';

export const CONNECTION_TYPES = ['ORACLE', 'SQL_SERVER', 'POSTGRESQL', 'MONGODB', 'MYSQL'] as const;
export type ConnectionType = (typeof CONNECTION_TYPES)[number];

const CONFIG_NAME = /^[a-zA-Z0-9_-]+$/;
/** RFC 952 as the original validated it: starts with a letter, at least two characters. */
const HOSTNAME = /^[a-zA-Z]([a-zA-Z0-9-]+\.?)*[a-zA-Z0-9]$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

export function isHostShape(host: string): boolean {
  return HOSTNAME.test(host) || IPV4.test(host) || isIpv6(host);
}

function isIpv6(text: string): boolean {
  try {
    return text.includes(':') && new URL(`http://[${text}]/`).hostname !== '';
  } catch {
    return false;
  }
}

export const Shape = {
  required: (field: string): FieldProblem => ({ field, message: `${field} is a required field`, required: true }),
  min: (field: string, n: number): FieldProblem => ({ field, message: `${field} must be ${n} or greater`, required: false }),
  max: (field: string, n: number): FieldProblem => ({ field, message: `${field} must be ${n} or less`, required: false }),
  minLength: (field: string, n: number): FieldProblem => ({ field, message: `${field} must be at least ${n} characters in length`, required: false }),
  maxLength: (field: string, n: number): FieldProblem => ({ field, message: `${field} must be a maximum of ${n} characters in length`, required: false }),
  oneOfTypes: (field: string): FieldProblem => ({ field, message: `${field} must be one of [${CONNECTION_TYPES.join(' ')}]`, required: false }),
  host: (field: string): FieldProblem => ({ field, message: `${field} must be a valid hostname or IP address`, required: false }),
};

/** A connection as the domain rules see it: after trimming, before encryption. Keys of problems are snake_case. */
export interface ConnectionFacts {
  readonly configName: string;
  readonly type: string;
  readonly host: string;
  readonly port: number;
  readonly databaseName: string;
  readonly userName: string;
  readonly hasPassword: boolean;
  /** Checked at create only: records from before products existed stay patchable. */
  readonly productName?: string;
  readonly ssl?: { readonly mode: string; readonly hasCa: boolean };
}

/**
 * The domain pass (entity `connection`). A missing value, a config name outside the pattern and a
 * missing `ssl.mode` / `ssl.ca` count as "required" problems (clients rely on FET-0402 for them).
 */
export function domainProblems(c: ConnectionFacts): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const required = (field: string) => problems.push({ field, message: `${field} is required`, required: true });
  if (c.configName === '') required('config_name');
  else {
    if (c.configName.length < 3 || c.configName.length > 100) {
      problems.push({ field: 'config_name', message: 'config_name must be between 3 and 100 characters', required: false });
    }
    if (!CONFIG_NAME.test(c.configName)) {
      problems.push({ field: 'config_name', message: 'config_name can only contain letters, digits, underscores and hyphens', required: true });
    }
  }
  if (c.databaseName === '') required('database_name');
  if (c.port === 0) required('port');
  if (c.host === '') required('host');
  if (c.userName === '') required('username');
  if (!c.hasPassword) required('password_encrypted');
  if (c.productName !== undefined && c.productName === '') required('product_name');
  if (c.type === '') required('type');
  if (c.ssl) {
    if (c.ssl.mode === '') required('ssl.mode');
    else if (!(sslModesFor(c.type) ?? []).includes(c.ssl.mode)) {
      problems.push({ field: 'ssl.mode', message: `ssl.mode '${c.ssl.mode}' is not supported for ${c.type}`, required: false });
    }
    if (!c.ssl.hasCa) required('ssl.ca');
  }
  return problems;
}
