import { type BeforeApplicationShutdown, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { parseJobControlMessage } from '@fetcher/contracts';
import type { VerifyEnvelopeResult } from '@fetcher/platform';
import type { AmqpConnectionManager, ChannelWrapper } from 'amqp-connection-manager';
import type { Channel, ConsumeMessage } from 'amqplib';
import type { JobCancelRegistry } from '../../jobs/cancel/job-cancel-registry';
import type { WorkerMetrics } from '../../metrics/worker-metrics';

/** How long shutdown waits for the control channel to close. */
const CLOSE_BOUND_MS = 1_000;

export interface JobControlOptions {
  /** The fanout exchange the Manager publishes control messages on (durable, declared here too). */
  readonly exchange: string;
  /** Checks the HMAC envelope as delivered (exchange and routing key included). Never throws. */
  readonly verify: (msg: ConsumeMessage) => VerifyEnvelopeResult;
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

  /** Resolves once the queue is bound and consumed (tests wait on it). */
  async listen(): Promise<void> {
    this.#channel ??= this.connection().createChannel({
      setup: async (ch: Channel) => {
        await ch.assertExchange(this.options.exchange, 'fanout', { durable: true });
        const { queue } = await ch.assertQueue('', { exclusive: true, autoDelete: true });
        await ch.bindQueue(queue, this.options.exchange, '');
        await ch.consume(queue, (msg) => msg && this.handle(msg), { noAck: true });
      },
    });
    await this.#channel.waitForConnect();
  }

  /** One control message: verified, parsed, and handed to the registry. */
  handle(msg: ConsumeMessage): void {
    const verified = this.options.verify(msg);
    if (!verified.ok) return this.#drop(verified.reason);
    const message = parseJobControlMessage(msg.content);
    if (!message) return this.#drop('malformed'); // the signature covers the body's jobId: no other job can be named
    if (this.registry.request(message.jobId, message.requestedAt)) this.#log.log(`job ${message.jobId}: cancel requested; stopping its run`);
  }

  /**
   * Stops consuming before the connections close. The close is bounded: seen in the e2e SIGTERM test,
   * amqplib's channel close on the drained consumer connection never settled and held the Worker's
   * shutdown past its 10 s bound (exit code 1). Nothing is lost by not waiting: the queue is exclusive
   * and auto-delete, so the broker drops it with the connection `AmqpConnections` closes next.
   */
  async beforeApplicationShutdown(): Promise<void> {
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
    this.#log.warn(`control message dropped (${reason})`);
  }
}
