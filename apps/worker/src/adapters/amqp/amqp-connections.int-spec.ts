import { createServer } from 'node:net';
import { once } from 'node:events';
import { CircuitBreaker } from '@fetcher/platform';
import { AmqpConnections } from './amqp-connections';

const BROKER = 'amqp://guest:guest@127.0.0.1:5672';

/** A loopback port nothing listens on: bind port 0, read it, release it. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

// 'connect' and 'error': what `events.once(manager, 'connect')` adds. (The manager's own first
// connect also holds a 'connectFailed' listener, released a tick after it connects.)
const listeners = (sut: AmqpConnections) =>
  [sut.consumer, sut.publisher].map((m) => ({ connect: m.listenerCount('connect'), error: m.listenerCount('error') }));

describe('AmqpConnections.waitConnected against a real RabbitMQ', () => {
  const opened: AmqpConnections[] = [];
  const connections = (url: string) => {
    const sut = new AmqpConnections(url, new CircuitBreaker('it.amqp', { threshold: 100, coolDownMs: 1_000 }));
    opened.push(sut);
    return sut;
  };
  afterEach(async () => {
    for (const sut of opened.splice(0)) await sut.onApplicationShutdown();
  });

  it('resolves at once when both connections are open, without waiting for another connect', async () => {
    const sut = connections(BROKER);
    await sut.waitConnected(10_000);
    expect(sut.connected).toBe(true);
    const before = listeners(sut);
    // No new 'connect' event comes while the connections stay open, so only an answer from the
    // current state can resolve within this budget.
    await expect(sut.waitConnected(50)).resolves.toBeUndefined();
    expect(listeners(sut)).toEqual(before);
  });

  it('leaves no listener behind when it times out', async () => {
    const sut = connections(`amqp://guest:guest@127.0.0.1:${await closedPort()}`);
    const before = listeners(sut);
    for (let i = 0; i < 5; i++) await expect(sut.waitConnected(20)).rejects.toThrow('not connected within 20 ms');
    expect(listeners(sut)).toEqual(before);
  });

  it('leaves no listener behind when aborted, and rejects with the reason', async () => {
    const sut = connections(`amqp://guest:guest@127.0.0.1:${await closedPort()}`);
    const before = listeners(sut);
    const controller = new AbortController();
    const waiting = sut.waitConnected(60_000, controller.signal);
    controller.abort(new Error('probe cut'));
    await expect(waiting).rejects.toThrow('probe cut');
    expect(listeners(sut)).toEqual(before);
  });
});
