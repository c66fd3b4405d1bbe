import { type CustomTransportStrategy, Server } from '@nestjs/microservices';
import type { ConsumeMessage } from 'amqplib';
import { lastValueFrom } from 'rxjs';
import { JOB_REQUESTED, JobQueueContext, settlementOf } from '@fetcher/worker';
import type { InProcessWorkQueue, QueuedMessage, Settlement } from './work-queue';

/**
 * The Worker's transport over the in-process work queue. Each delivery reaches the Worker's
 * `@EventPattern` handler shaped as the AMQP delivery it would get from RabbitMQ (body bytes,
 * headers, default exchange, routing key = work queue), so the same signature verification and the
 * same job handler run; what the handler says became of the delivery settles it, as over AMQP.
 */
export class InProcessJobQueueTransport extends Server implements CustomTransportStrategy {
  readonly #listeners = new Map<string, ((...args: unknown[]) => unknown)[]>();
  #deliveryTag = 0;

  constructor(
    private readonly queue: InProcessWorkQueue,
    private readonly concurrency: number,
  ) {
    super();
  }

  listen(ready: (error?: unknown) => void): void {
    this.queue.consume((message) => this.#dispatch(message), this.concurrency);
    ready();
  }

  /** Stops taking deliveries and waits for the jobs in flight; they are not cancelled. */
  async drain(): Promise<void> {
    await this.queue.drain();
  }

  async close(): Promise<void> {
    await this.drain();
  }

  // Nest's Server API; the in-process queue raises no transport events, so listeners are only kept.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  on<EventKey extends string = string, EventCallback extends Function = Function>(event: EventKey, callback: EventCallback): void {
    this.#listeners.set(event, [...(this.#listeners.get(event) ?? []), callback as unknown as (...args: unknown[]) => unknown]);
  }

  unwrap<T>(): T {
    return this.queue as T;
  }

  async #dispatch(message: QueuedMessage): Promise<Settlement> {
    const handler = this.getHandlerByPattern(JOB_REQUESTED);
    if (!handler) return 'dead-letter';
    const delivery = asDelivery(message, ++this.#deliveryTag);
    const outcome: unknown = await lastValueFrom(this.transformToObservable(await handler(delivery, new JobQueueContext([delivery]))), {
      defaultValue: undefined,
    });
    return settlementOf(outcome);
  }
}

/** The fields of an amqplib delivery that handlers read. */
function asDelivery(message: QueuedMessage, deliveryTag: number): ConsumeMessage {
  return {
    content: message.body,
    fields: { deliveryTag, redelivered: message.redelivered, exchange: message.exchange, routingKey: message.routingKey, consumerTag: 'standalone' },
    properties: {
      contentType: 'application/json',
      contentEncoding: undefined,
      headers: { ...message.headers },
      deliveryMode: 2,
      priority: undefined,
      correlationId: undefined,
      replyTo: undefined,
      expiration: undefined,
      messageId: undefined,
      timestamp: undefined,
      type: undefined,
      userId: undefined,
      appId: undefined,
      clusterId: undefined,
    },
  };
}
