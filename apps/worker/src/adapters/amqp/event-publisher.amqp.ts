import type { AmqpConnectionManager, ChannelWrapper } from 'amqp-connection-manager';
import type { EventPublisher, OutgoingEvent } from '../../ports/event-publisher.port';

const CONFIRM_TIMEOUT_MS = 5_000;

/** Job events on their own connection and confirm channel; `publish` resolves on the broker's ack. */
export class AmqpEventPublisher implements EventPublisher {
  #channel: ChannelWrapper | undefined;

  constructor(
    private readonly connection: () => AmqpConnectionManager,
    private readonly exchange: string,
  ) {}

  async publish(event: OutgoingEvent): Promise<void> {
    this.#channel ??= this.connection().createChannel({ confirm: true, json: false });
    await this.#channel.publish(this.exchange, event.routingKey, event.body, {
      persistent: true,
      mandatory: true,
      contentType: 'application/json',
      headers: { ...event.headers },
      timeout: CONFIRM_TIMEOUT_MS,
    });
  }

  async close(): Promise<void> {
    await this.#channel?.close();
  }
}
