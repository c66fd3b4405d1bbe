import type { Registry } from 'prom-client';
import { type Telemetry, TenantEventListener, type TenantEventListenerOptions, type TenantEventsRedis, type TenantAmqp } from '@fetcher/platform';
import { TenantConsumers, type TenantConsumersDeps } from './tenant-consumers';
import { startTenantQueue, type TenantJobQueues } from './tenant-job-queues';
import { TenantConsumerMetrics } from './tenant-metrics';
import { TenantReconciler } from './tenant-reconciler';
import { FETCHER_SERVICE, type TenantResources } from './tenant-resources';

export interface TenantIntakeOptions {
  readonly resources: TenantResources;
  readonly intake: TenantJobQueues;
  readonly workQueue: string;
  readonly telemetry: Telemetry | null;
  readonly redis: TenantEventsRedis;
  /** `staging` or `production`: the event channel. */
  readonly environment: string;
  readonly reconcileIntervalMs: number;
  readonly logger: { log(message: string): void; warn(message: string): void };
  readonly metrics?: Registry;
  /** Tests: observe each tenant event once handled; tune the consumer retry. */
  readonly onDispatched?: TenantEventListenerOptions['onDispatched'];
  readonly retry?: Pick<TenantConsumersDeps<TenantAmqp>, 'retryDelayMs' | 'schedule'>;
}

/**
 * Wires the multi-tenant intake: the consumer registry over the per-tenant pools, the reconciler on
 * the tenant-manager's active list, and the tenant-event listener that drives the registry. Nothing
 * connects until the intake's `listen`.
 */
export function wireTenantIntake(options: TenantIntakeOptions): { consumers: TenantConsumers<TenantAmqp>; reconciler: TenantReconciler; listener: TenantEventListener } {
  const { resources, intake, logger } = options;
  const consumers = new TenantConsumers<TenantAmqp>({
    loadConfig: (tenantId, fresh) => resources.client.getTenantConfig(tenantId, FETCHER_SERVICE, { skipCache: fresh }),
    acquireConnection: (tenantId) => resources.amqp.acquire(tenantId),
    startConsumer: (tenantId, amqp) => startTenantQueue(tenantId, amqp, intake, { queue: options.workQueue, telemetry: options.telemetry }),
    releaseTenant: (tenantId) => resources.release(tenantId),
    invalidateConfig: (tenantId) => resources.client.invalidate(tenantId, FETCHER_SERVICE),
    logger,
    ...options.retry,
  });
  const metrics = options.metrics ? new TenantConsumerMetrics(options.metrics, () => consumers.consuming().length, { mongodb: resources.mongo, rabbitmq: resources.amqp }) : undefined;
  const reconciler = new TenantReconciler({
    listActive: (signal) => resources.client.getActiveTenants(FETCHER_SERVICE, { signal }),
    consumers,
    intervalMs: options.reconcileIntervalMs,
    logger,
    ...(metrics ? { onPass: (result, seconds) => metrics.recordPass(result, seconds) } : {}),
  });
  const listener = new TenantEventListener({
    redis: options.redis,
    environment: options.environment,
    handler: consumers,
    service: FETCHER_SERVICE,
    connectionName: 'fetcher-worker-tenant-events',
    ...(options.onDispatched ? { onDispatched: options.onDispatched } : {}),
  });
  intake.attach({ listener, reconciler, consumers });
  return { consumers, reconciler, listener };
}
