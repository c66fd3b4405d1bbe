import { randomUUID } from 'node:crypto';
import amqp, { type AmqpConnectionManager } from 'amqp-connection-manager';
import amqplib, { type Channel, type ChannelModel } from 'amqplib';
import { eventPublisherContract, type ReceivedEvent } from '../../testing/event-publisher.contract';
import { AmqpEventPublisher } from './event-publisher.amqp';

const BROKER = 'amqp://guest:guest@127.0.0.1:5672';

describe('AmqpEventPublisher against a real RabbitMQ', () => {
  let admin: ChannelModel;
  let channel: Channel;
  let connection: AmqpConnectionManager;
  const publishers: AmqpEventPublisher[] = [];
  const exchanges: string[] = [];

  beforeAll(async () => {
    admin = await amqplib.connect(BROKER);
    channel = await admin.createChannel();
    connection = amqp.connect([BROKER]);
  });
  afterAll(async () => {
    await Promise.all(publishers.map((p) => p.close()));
    for (const exchange of exchanges) await channel.deleteExchange(exchange);
    await admin.close();
    await connection.close();
  });

  /** Everything the subscriber's queue holds now: a confirmed publish is already routed there. */
  async function drain(queue: string, into: ReceivedEvent[]): Promise<ReceivedEvent[]> {
    for (let message = await channel.get(queue, { noAck: true }); message; message = await channel.get(queue, { noAck: true })) {
      into.push({ routingKey: message.fields.routingKey, body: message.content, headers: message.properties.headers ?? {} });
    }
    return [...into];
  }

  describe('the event publisher contract', () => {
    eventPublisherContract(async () => {
      // The events exchange as the topology declares it, with one subscriber bound to every job event.
      const exchange = `fetcher.it.events.${randomUUID()}`;
      exchanges.push(exchange);
      await channel.assertExchange(exchange, 'topic', { durable: true });
      const { queue } = await channel.assertQueue('', { exclusive: true });
      await channel.bindQueue(queue, exchange, 'job.*');
      const publisher = new AmqpEventPublisher(() => connection, exchange);
      publishers.push(publisher);
      const received: ReceivedEvent[] = [];
      return {
        publisher,
        received: () => drain(queue, received),
        broken: () => {
          // An exchange nobody declared: the broker closes the channel instead of confirming.
          const broken = new AmqpEventPublisher(() => connection, `fetcher.it.missing.${randomUUID()}`);
          publishers.push(broken);
          return broken;
        },
      };
    });
  });
});
