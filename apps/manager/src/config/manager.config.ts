import { ConfigError, envReader, parseListenAddress } from '@fetcher/platform';

export const MANAGER_CONFIG = Symbol('ManagerConfig');

export interface ManagerConfig {
  readonly http: { readonly host?: string; readonly port: number };
  readonly version: string;
}

/**
 * Parses the Manager's environment once, at startup. Errors name the variable, never its value.
 * The full variable set (manager-api.md section 20) arrives with the Manager issue; this is the
 * boot skeleton.
 */
export function loadManagerConfig(env: Readonly<Record<string, string | undefined>>): ManagerConfig {
  const value = envReader(env);
  const address = parseListenAddress(value('SERVER_ADDRESS') ?? ':4006');
  if (!address) throw new ConfigError(['SERVER_ADDRESS: must be [host]:port with a port from 1 to 65535']);
  return Object.freeze({ http: Object.freeze(address), version: value('VERSION') ?? '0.0.0' });
}
