import type { AmqpConnectionManager, ChannelWrapper } from 'amqp-connection-manager';
import { injectTraceHeaders, SpanKind, type Telemetry } from '@fetcher/platform';
import type { EventPublisher, OutgoingEvent } from '../../ports/event-publisher.port';
import { traced } from '@fetcher/platform';

const CONFIRM_TIMEOUT_MS = 5_000;

/**
 * Job events on their own connection and confirm channel; `publish` resolves on the broker's ack.
 * With telemetry, each publish is a producer span and its trace context rides in the headers
 * (outside the signed fields).
 */
export class AmqpEventPublisher implements EventPublisher {
  #channel: ChannelWrapper | undefined;

  constructor(
    private readonly connection: () => AmqpConnectionManager,
    private readonly exchange: string,
    private readonly telemetry: Telemetry | null = null,
  ) {}

  publish(event: OutgoingEvent): Promise<void> {
    return traced(this.telemetry, `publish ${this.exchange}`, {
      kind: SpanKind.PRODUCER,
      attributes: { 'messaging.system': 'rabbitmq', 'messaging.destination.name': this.exchange, 'messaging.operation.type': 'send', 'messaging.rabbitmq.destination.routing_key': event.routingKey },
    }, () => this.#publish(event));
  }

  async #publish(event: OutgoingEvent): Promise<void> {
    this.#channel ??= this.connection().createChannel({ confirm: true, json: false });
    const headers: Record<string, unknown> = { ...event.headers };
    if (this.telemetry) injectTraceHeaders(headers);
    await this.#channel.publish(this.exchange, event.routingKey, event.body, {
      persistent: true,
      mandatory: true,
      contentType: 'application/json',
      headers,
      timeout: CONFIRM_TIMEOUT_MS,
    });
  }

  async close(): Promise<void> {
    await this.#channel?.close();
  }
}
