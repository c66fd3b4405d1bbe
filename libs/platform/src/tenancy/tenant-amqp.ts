import { readFile } from 'node:fs/promises';
import { type AmqpConnectionManager, connect } from 'amqp-connection-manager';
import { amqpUrl } from '../amqp/amqp-url';
import type { TenantConfig } from './tenant-config';
import { TenantPool, type TenantPoolOptions } from './tenant-pool';
import { TenantResourceError } from './tenant-resource-error';

/** A tenant's vhost on the broker. `url` holds the tenant's password: never log it. */
export interface TenantAmqpTarget {
  readonly url: string;
  readonly vhost: string;
  readonly tls: boolean;
  /** A custom CA bundle read from this process's filesystem. */
  readonly caFile?: string;
}

export interface TenantAmqpTargetOptions {
  /** The service's own `RABBITMQ_TLS`-style setting, used when the tenant's `tls` is absent. */
  readonly defaultTls: boolean;
}

/**
 * The tenant's vhost and credentials from the tenant-level `messaging.rabbitmq` (the same for every
 * module of the service). `tls` true dials `amqps`, false `amqp`, absent follows `defaultTls`. A
 * missing section or field is a `TenantResourceError`: the shared vhost is never used instead.
 */
export function tenantAmqpTarget(tenantId: string, config: TenantConfig, options: TenantAmqpTargetOptions): TenantAmqpTarget {
  const rabbit = config.messaging?.rabbitmq;
  if (!rabbit) throw new TenantResourceError('rabbitmq_not_configured', tenantId, 'messaging.rabbitmq');
  for (const key of ['host', 'port', 'vhost', 'username', 'password'] as const) {
    if (rabbit[key] === undefined || rabbit[key] === '') throw new TenantResourceError('rabbitmq_not_configured', tenantId, `messaging.rabbitmq.${key}`);
  }
  const tls = rabbit.tls ?? options.defaultTls;
  return {
    url: amqpUrl({ scheme: tls ? 'amqps' : 'amqp', host: rabbit.host!, port: rabbit.port!, user: rabbit.username!, password: rabbit.password!, vhost: rabbit.vhost! }),
    vhost: rabbit.vhost!,
    tls,
    ...(rabbit.tlsCAFile ? { caFile: rabbit.tlsCAFile } : {}),
  };
}

/** A connection to one tenant's vhost; it reconnects by itself once it has connected. */
export interface TenantAmqp {
  readonly connection: AmqpConnectionManager;
  readonly vhost: string;
  readonly tls: boolean;
}

export interface OpenTenantAmqpOptions {
  /** How long the first connect may take. Default 10 s. */
  readonly connectTimeoutMs?: number;
  readonly heartbeatIntervalInSeconds?: number;
}

/**
 * Connects to the tenant's vhost and resolves once connected. The first attempt failing (refused
 * credentials, an unknown vhost, the broker down) closes the connection and rejects with
 * `unreachable`, so a pool keeps nothing broken.
 */
export async function openTenantAmqp(tenantId: string, target: TenantAmqpTarget, options: OpenTenantAmqpOptions = {}): Promise<TenantAmqp> {
  const ca = target.caFile ? [await readFile(target.caFile)] : undefined;
  const connection = connect([target.url], {
    heartbeatIntervalInSeconds: options.heartbeatIntervalInSeconds ?? 5,
    reconnectTimeInSeconds: 1,
    ...(ca ? { connectionOptions: { ca } } : {}),
  });
  // Retried by the manager after the first connect; without a listener an 'error' would end the process.
  connection.on('error', () => undefined);
  try {
    await firstConnect(connection, options.connectTimeoutMs ?? 10_000);
  } catch (error) {
    await connection.close().catch(() => undefined);
    throw new TenantResourceError('unreachable', tenantId, 'rabbitmq', error);
  }
  return { connection, vhost: target.vhost, tls: target.tls };
}

function firstConnect(connection: AmqpConnectionManager, ms: number): Promise<void> {
  if (connection.isConnected()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const settle = (error?: unknown) => {
      clearTimeout(timer);
      connection.off('connect', onConnect);
      connection.off('connectFailed', onFailed);
      if (error === undefined) resolve();
      else reject(error instanceof Error ? error : new Error('connect failed'));
    };
    const onConnect = () => settle();
    const onFailed = ({ err }: { err?: Error }) => settle(err ?? new Error('connect failed'));
    const timer = setTimeout(() => settle(new Error(`not connected within ${ms} ms`)), ms);
    connection.on('connect', onConnect);
    connection.on('connectFailed', onFailed);
  });
}

export interface TenantAmqpPoolOptions
  extends Pick<TenantPoolOptions<TenantAmqp>, 'maxTenants' | 'idleTimeoutMs' | 'sweepIntervalMs' | 'now' | 'onDisposeError'>,
    TenantAmqpTargetOptions, OpenTenantAmqpOptions {
  /** The tenant's config for the service (`TenantManagerClient.getTenantConfig(id, 'fetcher')`). */
  readonly configOf: (tenantId: string) => Promise<TenantConfig>;
  readonly name?: string;
}

/** One connection per tenant vhost, capped and evicted as `TenantPool` describes. */
export function createTenantAmqpPool(options: TenantAmqpPoolOptions): TenantPool<TenantAmqp> {
  return new TenantPool<TenantAmqp>({
    name: options.name ?? 'tenant-rabbitmq',
    maxTenants: options.maxTenants,
    idleTimeoutMs: options.idleTimeoutMs,
    ...(options.sweepIntervalMs === undefined ? {} : { sweepIntervalMs: options.sweepIntervalMs }),
    ...(options.now ? { now: options.now } : {}),
    ...(options.onDisposeError ? { onDisposeError: options.onDisposeError } : {}),
    open: async (tenantId) => openTenantAmqp(tenantId, tenantAmqpTarget(tenantId, await options.configOf(tenantId), options), options),
    dispose: (_tenantId, amqp) => amqp.connection.close(),
  });
}
