import { type BeforeApplicationShutdown, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { parseJobControlMessage } from '@fetcher/contracts';
import type { VerifyEnvelopeResult } from '@fetcher/platform';
import type { AmqpConnectionManager, ChannelWrapper } from 'amqp-connection-manager';
import type { Channel, ConsumeMessage } from 'amqplib';
import type { JobCancelRegistry } from '../../jobs/cancel/job-cancel-registry';
import type { WorkerMetrics } from '../../metrics/worker-metrics';
import type { TenantScope } from '../../tenancy/tenant-scope';

/** How long shutdown waits for the control channel to close. */
const CLOSE_BOUND_MS = 1_000;

export interface JobControlOptions {
  /** The fanout exchange the Manager publishes control messages on (durable, declared here too). */
  readonly exchange: string;
  /** Checks the HMAC envelope as delivered (exchange and routing key included). Never throws. */
  readonly verify: (msg: ConsumeMessage) => VerifyEnvelopeResult;
  /**
   * Multi-tenant mode: the tenant whose vhost this consumer listens on. Its messages must be signed
   * for that tenant (`X-Tenant-ID`), and each is applied within the tenant's scope, so it can only
   * cancel that tenant's runs.
   */
  readonly tenant?: { readonly id: string; readonly scope: TenantScope };
}

/**
 * Each Worker replica binds its own exclusive, auto-delete queue to the control fanout exchange, so
 * every replica sees every cancel, and the one whose run holds the lease stops it at once. Messages
 * are not acknowledged (a lost one is covered by the lease renewal, which reads the same request
 * from the job document); a message that fails its signature check, or is not a cancel, is counted
 * and dropped, never logged with its body.
 */
export class JobControlConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly #log = new Logger(JobControlConsumer.name);
  #channel: ChannelWrapper | undefined;

  constructor(
    private readonly connection: () => AmqpConnectionManager,
    private readonly options: JobControlOptions,
    private readonly registry: JobCancelRegistry,
    private readonly metrics: WorkerMetrics,
  ) {}

  /** Starts consuming without waiting for the broker: the channel connects (and reconnects) on its own. */
  onApplicationBootstrap(): void {
    this.listen().catch(() => this.#log.warn('control channel not connected yet; it keeps trying'));
  }

  /**
   * Resolves once the queue is bound and consumed (tests wait on it); rejects when the broker refused
   * the setup (the channel then waits for the next reconnect to try again).
   */
  async listen(): Promise<void> {
    const channel = (this.#channel ??= this.#open());
    await new Promise<void>((resolve, reject) => {
      const refused = (error: unknown) => reject(error instanceof Error ? error : new Error('control channel setup failed'));
      channel.once('error', refused);
      void channel.waitForConnect().then(() => {
        channel.off('error', refused);
        resolve();
      });
    });
  }

  #open(): ChannelWrapper {
    const channel = this.connection().createChannel({
      setup: async (ch: Channel) => {
        await ch.assertExchange(this.options.exchange, 'fanout', { durable: true });
        const { queue } = await ch.assertQueue('', { exclusive: true, autoDelete: true });
        await ch.bindQueue(queue, this.options.exchange, '');
        await ch.consume(queue, (msg) => msg && this.handle(msg), { noAck: true });
      },
    });
    // A setup the broker refused (the exchange or queue not allowed) is tried again on the next
    // reconnect; meanwhile cancels reach runs through the lease renewal. Without a listener the
    // wrapper's 'error' would be thrown.
    channel.on('error', (error: unknown) => this.#log.warn(`control channel${this.#of()}: setup failed (${error instanceof Error ? error.name : 'error'}); cancels arrive through lease renewal until it is set up`));
    return channel;
  }

  /** One control message: verified, parsed, and handed to the registry. */
  handle(msg: ConsumeMessage): void {
    const verified = this.options.verify(msg);
    if (!verified.ok) return this.#drop(verified.reason);
    const tenant = this.options.tenant;
    // Signed for another tenant (or for none) and moved into this vhost: authentic, but not this tenant's to act on.
    if (tenant && verified.tenantId !== tenant.id) return this.#drop('tenant_mismatch');
    const message = parseJobControlMessage(msg.content);
    if (!message) return this.#drop('malformed'); // the signature covers the body's jobId: no other job can be named
    const request = () => this.registry.request(message.jobId, message.requestedAt);
    if (tenant ? tenant.scope.run(tenant.id, request) : request()) this.#log.log(`job ${message.jobId}${this.#of()}: cancel requested; stopping its run`);
  }

  /**
   * Stops consuming before the connections close. The close is bounded: seen in the e2e SIGTERM test,
   * amqplib's channel close on the drained consumer connection never settled and held the Worker's
   * shutdown past its 10 s bound (exit code 1). Nothing is lost by not waiting: the queue is exclusive
   * and auto-delete, so the broker drops it with the connection `AmqpConnections` closes next.
   */
  beforeApplicationShutdown(): Promise<void> {
    return this.stop();
  }

  /** Stops consuming (bounded, see `beforeApplicationShutdown`); a tenant's consumer calls it when the tenant stops. */
  async stop(): Promise<void> {
    const channel = this.#channel;
    this.#channel = undefined;
    if (!channel) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_BOUND_MS)));
    await Promise.race([channel.close().catch(() => undefined), bound]);
    clearTimeout(timer);
  }

  #drop(reason: string): void {
    this.metrics.controlRejected.inc({ reason });
    this.#log.warn(`control message${this.#of()} dropped (${reason})`);
  }

  #of(): string {
    return this.options.tenant ? ` of tenant ${this.options.tenant.id}` : '';
  }
}
