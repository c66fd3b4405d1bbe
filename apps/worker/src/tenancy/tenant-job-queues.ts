import { type CustomTransportStrategy, Server } from '@nestjs/microservices';
import { checkWorkQueue, type Telemetry, type TenantAmqp } from '@fetcher/platform';
import type { ConsumeMessage } from 'amqplib';
import { JOB_REQUESTED, type JobQueueContext, JobQueueTransport } from '../adapters/amqp/job-queue.transport';
import type { TenantQueueConsumer } from './tenant-consumers';
import type { TenantScope } from './tenant-scope';

/** Prefetch and concurrency of each tenant's consumer. */
export const TENANT_PREFETCH = 10;

/** What the multi-tenant intake starts and stops, in order. */
export interface TenantIntakeParts {
  /**
   * The tenant-event listener. Its first attempt to subscribe is waited for (so events are heard
   * before the initial sync); when Redis is unreachable it keeps trying in the background and the
   * Worker starts all the same.
   */
  readonly listener: { start(): Promise<boolean>; close(): Promise<void>; ping(): Promise<unknown> };
  /** The initial sync, then the periodic reconcile. */
  readonly reconciler: { start(): Promise<unknown>; stop(): Promise<void> };
  /** The per-tenant consumers. */
  readonly consumers: { close(): Promise<void>; ownsTenant(tenantId: string): boolean; ensureStarted(tenantId: string): Promise<boolean> };
}

/**
 * The Worker's intake in multi-tenant mode, registered with Nest as the microservice strategy in place
 * of the single work-queue consumer. It holds no queue itself: `listen` subscribes to tenant events
 * and runs the initial sync, which starts one consumer per tenant vhost (`startTenantQueue`); every
 * such consumer hands its deliveries to the controller's handler within the tenant's scope.
 */
export class TenantJobQueues extends Server implements CustomTransportStrategy {
  #parts: TenantIntakeParts | undefined;
  #listening = false;
  #closed: Promise<void> | undefined;

  constructor(private readonly scope: TenantScope) {
    super();
  }

  /** Wired after construction: the consumers need `handle`, and this needs them. */
  attach(parts: TenantIntakeParts): void {
    this.#parts = parts;
  }

  listen(ready: (error?: unknown) => void): void {
    this.#start().then(() => ready(), (error: unknown) => ready(error));
  }

  async #start(): Promise<void> {
    const parts = this.#requireParts();
    await parts.listener.start();
    this.#listening = true;
    await parts.reconciler.start();
  }

  /** A delivery from `tenantId`'s vhost, handled by the controller within that tenant's scope. */
  handle(tenantId: string, msg: ConsumeMessage, ctx: JobQueueContext): Promise<unknown> {
    const handler = this.getHandlerByPattern(JOB_REQUESTED);
    if (!handler) return Promise.reject(new Error('no handler for job requests'));
    return this.scope.run(tenantId, () => handler(msg, ctx));
  }

  /** A config fetched for a tenant this Worker does not serve yet (a cache miss): start its consumer. */
  lazyStart(tenantId: string): void {
    const consumers = this.#parts?.consumers;
    if (consumers && !this.#closed && !consumers.ownsTenant(tenantId)) void consumers.ensureStarted(tenantId);
  }

  /** The readiness check of the tenant-events Redis. */
  pingEvents(): Promise<unknown> {
    // A command before `start` would open the connection behind the listener's back (ioredis
    // connects on first use); the startup self-probe looks again until the intake has started.
    if (!this.#listening) return Promise.reject(new Error('tenant events not subscribed yet'));
    return this.#requireParts().listener.ping();
  }

  /** Drain: no more reconciling, then every tenant's consumer cancelled and its jobs in flight finished. */
  async drain(): Promise<void> {
    const parts = this.#requireParts();
    await parts.reconciler.stop();
    await parts.consumers.close();
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      await this.drain();
      await this.#requireParts().listener.close();
    })();
    return this.#closed;
  }

  on(): void {
    // No transport-level events to subscribe to.
  }

  unwrap<T>(): T {
    return this as unknown as T;
  }

  #requireParts(): TenantIntakeParts {
    if (!this.#parts) throw new Error('tenant intake is not wired');
    return this.#parts;
  }
}

export interface TenantQueueOptions {
  readonly queue: string;
  readonly telemetry: Telemetry | null;
  readonly concurrency?: number;
}

/**
 * Starts consuming the work queue in the tenant's vhost over its pooled connection: prefetch 10, at
 * most 10 jobs at once, manual acks, the same settling and retry rules as the single-tenant
 * consumer. The queue is only checked, never declared (the tenant-manager provisions it). A channel
 * that closes is opened again and consumption resumed by the connection manager.
 */
export async function startTenantQueue(
  tenantId: string,
  amqp: TenantAmqp,
  intake: TenantJobQueues,
  options: TenantQueueOptions,
): Promise<TenantQueueConsumer> {
  const transport = new JobQueueTransport(() => amqp.connection, {
    queue: options.queue,
    concurrency: options.concurrency ?? TENANT_PREFETCH,
    telemetry: options.telemetry,
    setupTopology: (ch) => checkWorkQueue(ch, options.queue),
  });
  transport.addHandler(JOB_REQUESTED, (msg: ConsumeMessage, ctx?: JobQueueContext) => intake.handle(tenantId, msg, ctx!) as never, true);
  try {
    await listening(transport);
  } catch (error) {
    await transport.close().catch(() => undefined);
    throw error;
  }
  return { stop: () => transport.close() };
}

/** A Nest transport's `listen`, as a promise. */
export function listening(server: { listen(ready: (error?: unknown) => void): void }): Promise<void> {
  return new Promise((resolve, reject) => server.listen((error?: unknown) => {
    if (error === undefined) resolve();
    else reject(error instanceof Error ? error : new Error('the transport did not start'));
  }));
}
