import { randomUUID } from 'node:crypto';
import { connect, type Channel, type ChannelModel } from 'amqplib';
import { amqpUrl } from './amqp-url';
import { assertFetcherTopology, checkWorkQueue, FETCHER_TOPOLOGY, TopologyError } from './topology';

// The dead-letter exchange and queue have fixed names that every Fetcher process on this broker
// shares, so the test declares them (idempotently) but never deletes them; its own objects are unique.
describe('assertFetcherTopology against a real RabbitMQ', () => {
  const run = randomUUID().slice(0, 8);
  const workQueue = `it.platform.${run}.work`;
  const eventsExchange = `it.platform.${run}.events`;
  const conflicting = `it.platform.${run}.conflict`;
  let connection: ChannelModel;

  // A refused declaration closes the channel, so each step gets a fresh one; the error event is
  // expected there and must not crash the run.
  const channel = async (): Promise<Channel> => {
    const ch = await connection.createChannel();
    ch.on('error', () => undefined);
    return ch;
  };

  beforeAll(async () => {
    connection = await connect(amqpUrl({ host: '127.0.0.1', port: 5672, user: 'guest', password: 'guest' }));
  });

  afterAll(async () => {
    const ch = await channel();
    await ch.deleteQueue(workQueue);
    await ch.deleteQueue(conflicting);
    await ch.deleteExchange(eventsExchange);
    await ch.close();
    await connection.close();
  });

  it('declares every object and is idempotent when asserted again', async () => {
    const ch = await channel();
    await assertFetcherTopology(ch, { workQueue, eventsExchange });
    await assertFetcherTopology(ch, { workQueue, eventsExchange });
    await expect(ch.checkQueue(workQueue)).resolves.toMatchObject({ queue: workQueue, messageCount: 0 });
    await expect(ch.checkQueue(FETCHER_TOPOLOGY.deadLetterQueue)).resolves.toMatchObject({ queue: 'fetcher.dlq' });
    await expect(ch.checkExchange(eventsExchange)).resolves.toBeDefined();
    await expect(ch.checkExchange(FETCHER_TOPOLOGY.deadLetterExchange)).resolves.toBeDefined();
    await ch.close();
  });

  it('declared the work queue durable with dead-lettering: a plain redeclare is refused with 406', async () => {
    const ch = await channel();
    await expect(ch.assertQueue(workQueue, { durable: true })).rejects.toMatchObject({ code: 406 });
  });

  it('declared the events exchange as a durable topic exchange: a direct redeclare is refused', async () => {
    const ch = await channel();
    await expect(ch.assertExchange(eventsExchange, 'direct', { durable: true })).rejects.toMatchObject({ code: 406 });
  });

  it('names the object when a pre-existing queue conflicts', async () => {
    const setup = await channel();
    await setup.assertQueue(conflicting, { durable: false });
    await setup.close();

    const ch = await channel();
    const failure = await assertFetcherTopology(ch, { workQueue: conflicting, eventsExchange }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TopologyError);
    expect(failure).toMatchObject({ objectKind: 'queue', objectName: conflicting, replyCode: 406 });
    expect((failure as Error).message).toBe(`RabbitMQ refused to declare queue "${conflicting}": it already exists with different settings (406 PRECONDITION_FAILED)`);
  });

  it('checks a work queue passively and names a missing one', async () => {
    await checkWorkQueue(await channel(), workQueue);
    const missing = `it.platform.${run}.missing`;
    await expect(checkWorkQueue(await channel(), missing)).rejects.toMatchObject({ objectName: missing, replyCode: 404 });
  });
});
