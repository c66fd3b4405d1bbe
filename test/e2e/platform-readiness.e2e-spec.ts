import { connect, createServer, type Server, type Socket } from 'node:net';
import { startMongoTestServer, type MongoTestServer } from '@fetcher/mongo-test-server';
import amqplib from 'amqplib';
import { type AppProcess, freePort, startApp } from './support/app-process';
import { managerEnv } from './support/manager-env';

/**
 * A TCP forwarder in front of a shared service that can simulate an outage: `down()` cuts every
 * connection and drops new ones at once; `up()` forwards again. The shared service is never stopped,
 * so other suites running on the machine are not affected.
 */
class OutageProxy {
  readonly #sockets = new Set<Socket>();
  #server?: Server;
  #down = false;

  constructor(private readonly targetPort: number) {}

  get port(): number {
    const address = this.#server?.address();
    if (!address || typeof address === 'string') throw new Error('proxy not listening');
    return address.port;
  }

  async start(): Promise<void> {
    this.#server = createServer((client) => {
      if (this.#down) {
        client.destroy();
        return;
      }
      const upstream = connect(this.targetPort, '127.0.0.1');
      for (const [from, to] of [[client, upstream], [upstream, client]] as const) {
        this.#sockets.add(from);
        from.pipe(to);
        from.on('error', () => undefined);
        from.on('close', () => { to.destroy(); this.#sockets.delete(from); });
      }
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
  }

  down(): void {
    this.#down = true;
    for (const socket of this.#sockets) socket.destroy();
  }

  up(): void {
    this.#down = false;
  }

  async close(): Promise<void> {
    this.down();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()) ?? resolve());
  }
}

type Readyz = { status: string; checks: Record<string, { status: string; error?: string }> };

async function until<T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('Manager readiness when dependencies go away and come back', () => {
  let mongo: MongoTestServer;
  const redis = new OutageProxy(6379);
  const rabbit = new OutageProxy(5672);
  let app: AppProcess | undefined;
  let workQueue = '';

  beforeAll(async () => {
    mongo = await startMongoTestServer();
    await redis.start();
    await rabbit.start();
    const port = await freePort();
    const env = managerEnv(mongo.uri, port, {
      REDIS_HOST: '127.0.0.1', REDIS_PORT: String(redis.port),
      RABBITMQ_HOST: '127.0.0.1', RABBITMQ_PORT_AMQP: String(rabbit.port), RABBITMQ_DEFAULT_USER: 'guest', RABBITMQ_DEFAULT_PASS: 'guest',
    });
    workQueue = env.RABBITMQ_FETCHER_WORK_QUEUE!;
    app = await startApp('manager', port, env, '/readyz');
    // /readyz can pass while the startup self-probe is still retrying a check that was not up yet;
    // an outage caused before the self-probe has decided would mark the process unhealthy for life.
    await until(async () => (await fetch(`${app!.baseUrl}/health`)).status === 200, 'self-probe passed', 20_000);
  });
  afterAll(async () => {
    await app?.stop();
    await redis.close();
    await rabbit.close();
    await mongo?.close();
    const broker = await amqplib.connect('amqp://guest:guest@127.0.0.1:5672');
    const channel = await broker.createChannel();
    await channel.deleteQueue(workQueue);
    await broker.close();
  });

  const readyz = async () => {
    const res = await fetch(`${app!.baseUrl}/readyz`);
    return { http: res.status, body: (await res.json()) as Readyz };
  };

  it('reports redis down while business routes keep working, then ready again', async () => {
    redis.down();
    const down = await until(async () => { const r = await readyz(); return r.body.checks.redis?.status === 'down' && r; }, 'redis down', 20_000);
    expect(down.http).toBe(503);
    expect(down.body.checks.mongodb?.status).toBe('up');
    const list = await fetch(`${app!.baseUrl}/v1/management/connections`, { headers: { 'x-product-name': 'probe' } });
    expect(list.status).toBe(200);
    expect((await fetch(`${app!.baseUrl}/health`)).status).toBe(200); // liveness is not readiness

    redis.up();
    await until(async () => (await readyz()).http === 200, 'ready again after redis', 30_000);
  });

  it('turns unready when RabbitMQ goes away and ready again without a restart', async () => {
    rabbit.down();
    const down = await until(async () => { const r = await readyz(); return r.body.checks.rabbitmq?.status !== 'up' && r; }, 'rabbitmq not up', 30_000);
    expect(down.http).toBe(503);
    expect(down.body.checks.rabbitmq?.error).toEqual(expect.any(String));

    rabbit.up();
    await until(async () => (await readyz()).http === 200, 'ready again after rabbitmq', 90_000);
  });
});
