import { resolve } from 'node:path';
import { ConfigError, envReader, parseListenAddress } from '@fetcher/platform';

/** The standalone service's own settings; the Manager and Worker settings are derived in `app-env.ts`. */
export interface StandaloneConfig {
  /** Absolute path of the data directory (`FETCHER_DATA_DIR`, default `./.fetcher-data`). */
  readonly dataDir: string;
  /** `SERVER_ADDRESS`, default `:4006`, bound to loopback when no host is given. */
  readonly http: { readonly host: string; readonly port: number };
  /** Whether to start the demo database and register its connection (`FETCHER_DEMO`, default true). */
  readonly demo: boolean;
  /** The master key from `APP_ENC_KEY`; absent: the key generated in the data directory. */
  readonly masterKeyText?: string;
  /** The environment the Manager and Worker configuration is derived from (their own variables pass through). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

export const DEFAULT_DATA_DIR = '.fetcher-data';
const BOOLEAN: Readonly<Record<string, boolean>> = { true: true, t: true, '1': true, false: false, f: false, '0': false };

/** Reads the standalone variables once; a bad one stops startup with its name, never its value. */
export function loadStandaloneConfig(env: Readonly<Record<string, string | undefined>>, cwd: string): StandaloneConfig {
  const read = envReader(env);
  const problems: string[] = [];

  const address = parseListenAddress(read('SERVER_ADDRESS') ?? ':4006');
  if (!address) problems.push('SERVER_ADDRESS: must be [host]:port or a bare port, from 1 to 65535');
  const demoText = read('FETCHER_DEMO')?.toLowerCase();
  const demo = demoText === undefined ? true : BOOLEAN[demoText];
  if (demo === undefined) problems.push('FETCHER_DEMO: must be true, false, 1, 0, t or f');
  // Silently running one tenant for a user who asked for many would be worse than refusing.
  const multiTenant = read('MULTI_TENANT_ENABLED')?.toLowerCase();
  if (multiTenant !== undefined && BOOLEAN[multiTenant] !== false) {
    problems.push('MULTI_TENANT_ENABLED: standalone mode is single-tenant; unset it or set it to false (multi-tenant mode needs the Manager and Worker services)');
  }

  if (problems.length > 0 || !address || demo === undefined) throw new ConfigError(problems);
  const masterKeyText = read('APP_ENC_KEY');
  return Object.freeze({
    dataDir: resolve(cwd, read('FETCHER_DATA_DIR') ?? DEFAULT_DATA_DIR),
    // A one-machine service: loopback unless the operator asks for more.
    http: Object.freeze({ host: address.host ?? '127.0.0.1', port: address.port }),
    demo,
    ...(masterKeyText !== undefined ? { masterKeyText } : {}),
    env: Object.freeze({ ...env }),
  });
}
