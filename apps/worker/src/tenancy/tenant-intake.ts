import type { Registry } from 'prom-client';
import { type Telemetry, TenantEventListener, type TenantEventListenerOptions, type TenantEventsRedis, type TenantAmqp } from '@fetcher/platform';
import { type JobControlOptions, JobControlConsumer } from '../adapters/amqp/job-control.consumer';
import type { JobCancelRegistry } from '../jobs/cancel/job-cancel-registry';
import type { WorkerMetrics } from '../metrics/worker-metrics';
import { TenantConsumers, type TenantConsumersDeps, type TenantQueueConsumer } from './tenant-consumers';
import { startTenantQueue, type TenantJobQueues } from './tenant-job-queues';
import type { TenantScope } from './tenant-scope';
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
  /** Each tenant's job-control consumer (cancels from the control exchange of its vhost). */
  readonly control: TenantControlOptions;
  /** Tests: observe each tenant event once handled; tune the consumer retry. */
  readonly onDispatched?: TenantEventListenerOptions['onDispatched'];
  readonly retry?: Pick<TenantConsumersDeps<TenantAmqp>, 'retryDelayMs' | 'schedule'>;
}

export interface TenantControlOptions {
  readonly exchange: string;
  readonly verify: JobControlOptions['verify'];
  readonly registry: JobCancelRegistry;
  readonly metrics: WorkerMetrics;
  readonly scope: TenantScope;
}

/**
 * What runs for one tenant on its vhost connection: its job-control consumer, then its work-queue
 * consumer, started and stopped together. The control consumer is bound first, so a job taken from
 * the queue can already be canceled by a control message, and stopped last, so the jobs still in
 * flight while the queue consumer drains can be too. A control channel the broker refuses does not
 * keep the tenant from consuming jobs (its cancels then arrive through the lease renewal).
 */
export async function startTenantConsumers(tenantId: string, amqp: TenantAmqp, start: {
  readonly control: TenantControlOptions;
  readonly queue: () => Promise<TenantQueueConsumer>;
}): Promise<TenantQueueConsumer> {
  const { exchange, verify, registry, metrics, scope } = start.control;
  const control = new JobControlConsumer(() => amqp.connection, { exchange, verify, tenant: { id: tenantId, scope } }, registry, metrics);
  // Refused (logged by the consumer): the jobs are consumed all the same.
  await control.listen().catch(() => undefined);
  let queue: TenantQueueConsumer;
  try {
    queue = await start.queue();
  } catch (error) {
    await control.stop();
    throw error;
  }
  return {
    stop: async () => {
      try {
        await queue.stop();
      } finally {
        await control.stop();
      }
    },
  };
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
    startConsumer: (tenantId, amqp) => startTenantConsumers(tenantId, amqp, {
      control: options.control,
      queue: () => startTenantQueue(tenantId, amqp, intake, { queue: options.workQueue, telemetry: options.telemetry }),
    }),
    releaseTenant: (tenantId) => resources.release(tenantId),
    invalidateConfig: (tenantId) => resources.client.invalidate(tenantId, FETCHER_SERVICE),
    logger,
    connectionCap: resources.maxTenants,
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
    // Subscribed late (Redis was away at startup) or again after a lost connection: events may have
    // been missed, so reconcile now rather than at the next interval.
    onSubscribed: () => void reconciler.pass(),
    ...(options.onDispatched ? { onDispatched: options.onDispatched } : {}),
  });
  intake.attach({ listener, reconciler, consumers });
  return { consumers, reconciler, listener };
}
