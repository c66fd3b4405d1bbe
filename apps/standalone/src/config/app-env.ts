import { isLoopbackHost } from '@fetcher/platform';
import type { StandaloneConfig } from './standalone.config';

/** The work queue's name inside the standalone process (it never leaves it). */
export const STANDALONE_WORK_QUEUE = 'fetcher.extract-external-data.queue';
export const STANDALONE_EVENTS_EXCHANGE = 'fetcher.job.events';

/** What the embedded backends replace, for the apps' settings loaders. */
export const EMBEDDED_MANAGER = { embedded: { store: true, objectStorage: true } } as const;
export const EMBEDDED_WORKER = { embedded: { store: true, objectStorage: true } } as const;

/**
 * Loopback is where a one-machine user's databases (and the demo database) live, so the host-safety
 * guard lets it through in this mode, on top of whatever the operator allows.
 */
const LOOPBACK_ALLOWLIST = ['127.0.0.1/32', '::1/128', 'localhost'];

/**
 * The environments the Manager's and the Worker's own configuration loaders read in standalone mode:
 * the user's variables, with the settings this mode fixes (the generated master key, the in-process
 * queue's names, single-tenant local deployment, Redis off). The loaders are told which
 * infrastructure is embedded (EMBEDDED_MANAGER, EMBEDDED_WORKER), so they neither ask for nor read
 * the MongoDB and S3 settings. Reusing the loaders keeps every other variable's parsing and
 * validation identical to production.
 */
export function appEnvironments(config: StandaloneConfig, masterKeyBase64: string): {
  manager: Record<string, string | undefined>;
  worker: Record<string, string | undefined>;
} {
  const user = config.env;
  const allowlist = [user.HOST_SAFETY_ALLOWLIST, ...LOOPBACK_ALLOWLIST].filter((v) => v !== undefined && v.trim() !== '').join(',');
  const common: Record<string, string | undefined> = {
    ...user,
    APP_ENC_KEY: masterKeyBase64,
    RABBITMQ_FETCHER_WORK_QUEUE: STANDALONE_WORK_QUEUE,
    HOST_SAFETY_ALLOWLIST: allowlist,
    MULTI_TENANT_ENABLED: 'false',
    DEPLOYMENT_MODE: 'local',
    REDIS_HOST: undefined, // the schema cache and the rate limiter run in memory
    // The banner is what a newcomer should see; request logs are one variable away.
    LOG_LEVEL: user.LOG_LEVEL ?? 'warn',
  };
  return {
    manager: {
      ...common,
      SERVER_ADDRESS: `${config.http.host}:${config.http.port}`,
      // The result route is on by default only while the API listens on loopback: see resultDownloadDefault.
      RESULT_DOWNLOAD_ENABLED: user.RESULT_DOWNLOAD_ENABLED ?? resultDownloadDefault(config.http.host),
    },
    worker: {
      ...common,
      RABBITMQ_JOB_EVENTS_EXCHANGE: STANDALONE_EVENTS_EXCHANGE,
      STREAMING_ENABLED: 'true',
      // Result files sit directly under <dataDir>/objects, where the CLI looks for them.
      OBJECT_STORAGE_KEY_PREFIX: '',
    },
  };
}

/**
 * `GET /v1/fetcher/{id}/result` in standalone mode, unless RESULT_DOWNLOAD_ENABLED says otherwise: on
 * when the API listens on loopback only (the default, 127.0.0.1), off on any other address. On
 * loopback the only callers are this machine's: the user, who can decrypt every result with
 * `fetcher result decrypt` and the key in the data directory anyway, and web pages in their browser,
 * which the route keeps out (no CORS, and a loopback-only Host check against DNS rebinding). On another
 * address (`SERVER_ADDRESS=0.0.0.0:4006`, a container) anyone on the network could download results,
 * since standalone mode has no authorization unless plugin-auth is configured.
 */
export function resultDownloadDefault(host: string): 'true' | 'false' {
  return isLoopbackHost(host) ? 'true' : 'false';
}
