import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { FaultProxy } from './fault-proxy';

/** What the service behind the proxy saw of one connection. */
interface Seen {
  bytes: number;
  error?: string;
  closed: boolean;
}

/**
 * The fault proxy between real sockets: an echo service on port 0 (or, for `resetAfterBytes`, one
 * that streams a megabyte), clients that dial the proxy, each fault put on and taken off.
 */
describe('FaultProxy', () => {
  let service: Server;
  let streamer: Server;
  const seen: Seen[] = [];
  let proxy: FaultProxy;
  const clients: Socket[] = [];

  const portOf = (server: Server) => (server.address() as { port: number }).port;
  const listen = async (server: Server) => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  };
  const dial = async (port = proxy.port): Promise<Socket> => {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    clients.push(socket);
    await once(socket, 'connect');
    return socket;
  };
  /** Reads from `socket` until `bytes` have come, or it closes; what it read and how it ended. */
  const read = (socket: Socket, bytes: number) => new Promise<{ data: Buffer; error?: string }>((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let error: string | undefined;
    const done = () => resolve({ data: Buffer.concat(chunks), error });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      total += chunk.length;
      if (total >= bytes) done();
    });
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code));
    socket.on('close', done);
  });
  const until = async (condition: () => boolean) => {
    const deadline = Date.now() + 10_000;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error('condition not met in 10 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  beforeAll(async () => {
    service = createServer((socket) => {
      const entry: Seen = { bytes: 0, closed: false };
      seen.push(entry);
      socket.on('data', (chunk: Buffer) => {
        entry.bytes += chunk.length;
        socket.write(chunk);
      });
      socket.on('error', (e: NodeJS.ErrnoException) => (entry.error = e.code));
      socket.on('close', () => (entry.closed = true));
    });
    streamer = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.end(Buffer.alloc(1 << 20, 7));
    });
    await listen(service);
    await listen(streamer);
  });

  beforeEach(async () => {
    proxy = new FaultProxy(portOf(service));
    await proxy.start();
    seen.length = 0;
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    await proxy.close();
  });

  afterAll(async () => {
    service.close();
    streamer.close();
  });

  it('forwards bytes both ways and counts the connections it accepted', async () => {
    const socket = await dial();
    const echoed = read(socket, 5);
    socket.write('hello');
    expect((await echoed).data.toString()).toBe('hello');
    expect(proxy.accepted).toBe(1);
    expect(proxy.links).toHaveLength(1);
  });

  it('delays every chunk by the latency, each way', async () => {
    proxy.shape({ latencyMs: 150 });
    const socket = await dial();
    const echoed = read(socket, 4);
    const started = Date.now();
    socket.write('ping');
    expect((await echoed).data.toString()).toBe('ping');
    // Lower bounds only: a slow machine may take longer, never shorter.
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('keeps the byte order under jitter', async () => {
    proxy.shape({ latencyMs: 20, jitterMs: 20 });
    const socket = await dial();
    const expected = Buffer.from(Array.from({ length: 200 }, (_, i) => `${i},`).join(''));
    const echoed = read(socket, expected.length);
    for (let i = 0; i < 200; i += 1) {
      socket.write(`${i},`);
      if (i % 20 === 0) await new Promise((resolve) => setImmediate(resolve)); // let chunks leave separately
    }
    expect((await echoed).data.toString()).toBe(expected.toString());
  });

  it('limits the bandwidth of each direction', async () => {
    proxy.shape({ bytesPerSecond: 200_000 });
    const socket = await dial();
    const payload = Buffer.alloc(100_000, 1);
    const echoed = read(socket, payload.length);
    const started = Date.now();
    socket.write(payload);
    expect((await echoed).data.length).toBe(payload.length);
    // 100 kB up and the same down at 200 kB/s each: at least half a second, less one slice of slack.
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
  });

  it('shapes one connection through its link, leaving the others alone', async () => {
    const slow = await dial();
    await until(() => proxy.links.length === 1);
    proxy.links[0].shape({ latencyMs: 300 });
    const fast = await dial();
    const order: string[] = [];
    const slowEcho = read(slow, 4).then((r) => order.push(r.data.toString()));
    const fastEcho = read(fast, 4).then((r) => order.push(r.data.toString()));
    const started = Date.now();
    slow.write('slow');
    fast.write('fast');
    await Promise.all([slowEcho, fastEcho]);
    expect(order).toEqual(['fast', 'slow']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
  });

  it('half-open: the connection stays up, no byte passes, and heal() closes it because bytes were lost', async () => {
    proxy.halfOpen();
    const socket = await dial();
    await until(() => seen.length === 1);
    const outcome = read(socket, 1);
    socket.write('lost');
    await until(() => proxy.links[0]?.lostBytes === true);
    expect(socket.destroyed).toBe(false);
    await proxy.heal();
    expect(await outcome).toEqual({ data: Buffer.alloc(0), error: undefined });
    expect(seen[0].bytes).toBe(0);

    // New connections pass bytes again.
    const fresh = await dial();
    const echoed = read(fresh, 2);
    fresh.write('ok');
    expect((await echoed).data.toString()).toBe('ok');
  });

  it('reset: both ends see ECONNRESET, and new connections are forwarded', async () => {
    const socket = await dial();
    await until(() => seen.length === 1);
    const outcome = read(socket, 1);
    proxy.reset();
    expect((await outcome).error).toBe('ECONNRESET');
    await until(() => seen[0].closed);
    expect(seen[0].error).toBe('ECONNRESET');

    const fresh = await dial();
    const echoed = read(fresh, 2);
    fresh.write('ok');
    expect((await echoed).data.toString()).toBe('ok');
  });

  it('resetAfterBytes: resets a connection in the middle of what the service sends', async () => {
    const midStream = new FaultProxy(portOf(streamer));
    await midStream.start();
    try {
      midStream.resetAfterBytes(200_000);
      const socket = await dial(midStream.port);
      const outcome = await read(socket, 1 << 20);
      expect(outcome.error).toBe('ECONNRESET');
      expect(outcome.data.length).toBeLessThan(200_000);
    }
    finally {
      await midStream.close();
    }
  });

  it('cut: open connections close, new ones are closed on arrival, restore() forwards again', async () => {
    const socket = await dial();
    const outcome = read(socket, 1);
    proxy.cut();
    expect(await outcome).toEqual({ data: Buffer.alloc(0), error: undefined });

    const refused = await dial();
    expect(await read(refused, 1)).toEqual({ data: Buffer.alloc(0), error: undefined });
    expect(proxy.accepted).toBe(1);

    proxy.restore();
    const fresh = await dial();
    const echoed = read(fresh, 2);
    fresh.write('ok');
    expect((await echoed).data.toString()).toBe('ok');
  });

  it('refuse: dials get ECONNREFUSED until heal() listens on the same port again', async () => {
    const port = proxy.port;
    await proxy.refuse();
    const socket = connect(port, '127.0.0.1');
    const [error] = (await once(socket, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('ECONNREFUSED');

    await proxy.heal();
    expect(proxy.port).toBe(port);
    const fresh = await dial();
    const echoed = read(fresh, 2);
    fresh.write('ok');
    expect((await echoed).data.toString()).toBe('ok');
  });

  it('hold: parks new connections until released, newest first', async () => {
    proxy.hold();
    const first = await dial();
    const second = await dial();
    await until(() => proxy.held === 2);
    expect(proxy.maxHeld).toBe(2);
    proxy.releaseNewest();
    const echoed = read(second, 3);
    second.write('two');
    expect((await echoed).data.toString()).toBe('two');
    expect(proxy.held).toBe(1);
    proxy.releaseAll();
    const echoedFirst = read(first, 3);
    first.write('one');
    expect((await echoedFirst).data.toString()).toBe('one');
  });
});
