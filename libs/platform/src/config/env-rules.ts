import { isIP } from 'node:net';
import type { EnvCheck, EnvProblem } from './parse-env';

const NON_PRODUCTION = new Set(['local', 'dev', 'development', 'test', 'testing']);

/** `local/dev/development/test/testing` in any case; anything else, including unset, is production. */
export function isNonProductionEnv(envName: string | undefined): boolean {
  return envName !== undefined && NON_PRODUCTION.has(envName.trim().toLowerCase());
}

/**
 * Credentials that only make sense together (user and password, key id and secret). Setting one
 * without the other is almost always a deployment mistake that would otherwise surface later as an
 * authentication failure far from its cause.
 */
export function pairCheck(...pairs: readonly (readonly [string, string])[]): EnvCheck {
  return (env) => pairs.flatMap(([a, b]): EnvProblem[] => {
    if (env[a] !== undefined && env[b] === undefined) return [{ variable: b, message: `is required when ${a} is set` }];
    if (env[b] !== undefined && env[a] === undefined) return [{ variable: a, message: `is required when ${b} is set` }];
    return [];
  });
}

/** One dependency's transport, for the SaaS TLS rule. */
export interface TlsRequirement {
  /** The variable an operator changes to fix it. */
  readonly variable: string;
  /** Whether the dependency is configured at all; unconfigured ones are not checked. */
  readonly configured: boolean;
  readonly tls: boolean;
}

/** With `DEPLOYMENT_MODE=saas`, every configured dependency must use TLS; checked before anything connects. */
export function saasTlsProblems(deploymentMode: string | undefined, requirements: readonly TlsRequirement[]): EnvProblem[] {
  if ((deploymentMode ?? '').trim().toLowerCase() !== 'saas') return [];
  return requirements
    .filter((r) => r.configured && !r.tls)
    .map((r) => ({ variable: r.variable, message: 'must use TLS when DEPLOYMENT_MODE=saas' }));
}

/** MongoDB uses TLS with `mongodb+srv` (TLS by default) or a `tls`/`ssl` parameter set to true or 1. */
export function mongoUsesTls(scheme: string | undefined, parameters: string | undefined): boolean {
  if ((scheme ?? '').trim().toLowerCase() === 'mongodb+srv') return true;
  const params = new URLSearchParams(parameters ?? '');
  return ['tls', 'ssl'].some((name) => ['true', '1'].includes((params.get(name) ?? '').toLowerCase()));
}

/** Whether a URL's scheme is one of the TLS schemes (`https`, `amqps`, `rediss`); false when unparseable. */
export function urlUsesTls(url: string | undefined, tlsSchemes: readonly string[] = ['https', 'amqps', 'rediss']): boolean {
  if (url === undefined) return false;
  try {
    return tlsSchemes.includes(new URL(url).protocol.replace(/:$/, ''));
  } catch {
    return false;
  }
}

/** Loopback names and addresses; plain HTTP to them never crosses a network. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
}

export interface MongoEnv {
  readonly MONGO_URI?: string;
  readonly MONGO_HOST?: string;
  readonly MONGO_PORT?: string;
  readonly MONGO_USER?: string;
  readonly MONGO_PASSWORD?: string;
  readonly MONGO_PARAMETERS?: string;
}

/**
 * The MongoDB connection string from its parts: `<scheme>://[user:pass@]host[:port]/[?params]`. The
 * database name (`MONGO_NAME`) is passed to the driver separately. Credentials are percent-encoded.
 * The result holds the password: never log it.
 */
export function mongoUriFromEnv(env: MongoEnv): string {
  const value = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());
  const scheme = (value(env.MONGO_URI) ?? 'mongodb').replace(/:\/*$/, '');
  const user = value(env.MONGO_USER);
  const password = value(env.MONGO_PASSWORD);
  const auth = user === undefined && password === undefined ? '' : `${encodeURIComponent(user ?? '')}:${encodeURIComponent(password ?? '')}@`;
  const host = value(env.MONGO_HOST) ?? 'localhost';
  // SRV records carry the ports, and the driver refuses a port with mongodb+srv.
  const port = value(env.MONGO_PORT) === undefined || scheme === 'mongodb+srv' ? '' : `:${value(env.MONGO_PORT)}`;
  const params = value(env.MONGO_PARAMETERS)?.replace(/^[/?]+/, '');
  return `${scheme}://${auth}${host}${port}/${params ? `?${params}` : ''}`;
}

