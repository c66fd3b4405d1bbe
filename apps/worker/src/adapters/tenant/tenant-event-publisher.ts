import type { ConfirmChannel } from 'amqplib';
import { injectTraceHeaders, SpanKind, type Telemetry, type TenantAmqp, type TenantPool, traced } from '@fetcher/platform';
import type { EventPublisher, OutgoingEvent } from '../../ports/event-publisher.port';
import type { TenantScope } from '../../tenancy/tenant-scope';

const CONFIRM_TIMEOUT_MS = 5_000;

/**
 * Job events of multi-tenant mode, on the vhost of the tenant in scope: the events exchange is
 * declared there (durable topic), the event published with a confirm, and the channel closed.
 * Outside a tenant's scope publishing fails; there is no shared vhost to fall back to.
 */
export class TenantEventPublisher implements EventPublisher {
  constructor(
    private readonly scope: TenantScope,
    private readonly amqp: TenantPool<TenantAmqp>,
    private readonly exchange: string,
    private readonly telemetry: Telemetry | null = null,
  ) {}

  publish(event: OutgoingEvent): Promise<void> {
    const tenantId = this.scope.require();
    return traced(this.telemetry, `publish ${this.exchange}`, {
      kind: SpanKind.PRODUCER,
      attributes: { 'messaging.system': 'rabbitmq', 'messaging.destination.name': this.exchange, 'messaging.operation.type': 'send', 'messaging.rabbitmq.destination.routing_key': event.routingKey },
    }, () => this.amqp.use(tenantId, (amqp) => this.#publish(amqp, event)));
  }

  async #publish(amqp: TenantAmqp, event: OutgoingEvent): Promise<void> {
    const exchange = this.exchange;
    const channel = amqp.connection.createChannel({
      confirm: true,
      json: false,
      setup: (ch: ConfirmChannel) => ch.assertExchange(exchange, 'topic', { durable: true }),
    });
    try {
      await channel.waitForConnect();
      const headers: Record<string, unknown> = { ...event.headers };
      if (this.telemetry) injectTraceHeaders(headers);
      await channel.publish(exchange, event.routingKey, event.body, {
        persistent: true,
        mandatory: true,
        contentType: 'application/json',
        headers,
        timeout: CONFIRM_TIMEOUT_MS,
      });
    } finally {
      await channel.close().catch(() => undefined);
    }
  }
}
