import type { OnApplicationShutdown } from '@nestjs/common';
import { type AmqpConnectionManager, connect } from 'amqp-connection-manager';

/**
 * One connection for consuming and a separate one for events, so a flow-controlled publisher can
 * never stall deliveries (and the reverse). Both reconnect on their own.
 */
export class AmqpConnections implements OnApplicationShutdown {
  readonly consumer: AmqpConnectionManager;
  readonly publisher: AmqpConnectionManager;

  constructor(url: string) {
    const options = { heartbeatIntervalInSeconds: 5, reconnectTimeInSeconds: 1 };
    this.consumer = connect([url], options);
    this.publisher = connect([url], options);
    // Connection errors are retried by the manager; without a listener an 'error' event would end the process.
    for (const c of [this.consumer, this.publisher]) c.on('error', () => undefined);
  }

  get connected(): boolean {
    return this.consumer.isConnected() && this.publisher.isConnected();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([this.consumer.close(), this.publisher.close()]);
  }
}
