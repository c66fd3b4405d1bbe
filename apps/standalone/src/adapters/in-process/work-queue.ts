import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, open } from 'node:fs/promises';
import { join } from 'node:path';
import { nextRetryHeaders } from '@fetcher/worker';

/** A message on the in-process work queue: the exact bytes and headers the Manager signed. */
export interface QueuedMessage {
  readonly id: string;
  readonly exchange: string;
  readonly routingKey: string;
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, unknown>>;
  readonly redelivered: boolean;
}

/** `retry`: store the same message again with `x-retry-count` one higher, then forget this delivery. */
export type Settlement = 'ack' | 'dead-letter' | 'retry';
export type QueueHandler = (message: QueuedMessage) => Promise<Settlement>;

interface StoredMessage {
  readonly exchange: string;
  readonly routingKey: string;
  readonly body: string;
  readonly headers: Record<string, unknown>;
}

/**
 * The work queue of the standalone service. It keeps RabbitMQ's contract where the apps can see it:
 * a publish resolves once the message is stored (the publisher confirm), a delivery carries the
 * signed body and headers unchanged, every delivery is settled once, a message is redelivered after
 * a restart until it is settled, a retried message is stored again (with its retry count raised)
 * before the original is forgotten, and a dead-lettered message is kept under `dead-letter/`, never
 * requeued. Deliveries run at most `concurrency` at a time, oldest first.
 */
export class InProcessWorkQueue {
  readonly #ready: QueuedMessage[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  #handler?: QueueHandler;
  #concurrency = 1;
  #sequence = 0;

  private constructor(
    private readonly dir: string,
    private readonly deadLetterDir: string,
  ) {}

  /** Opens the queue's directory and loads the messages a previous run left unsettled, for redelivery. */
  static async open(dir: string, deadLetterDir: string): Promise<InProcessWorkQueue> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await mkdir(deadLetterDir, { recursive: true, mode: 0o700 });
    const queue = new InProcessWorkQueue(dir, deadLetterDir);
    for (const name of (await readdir(dir)).sort()) {
      if (name.includes('.tmp-')) {
        await rm(join(dir, name), { force: true });
        continue;
      }
      if (!name.endsWith('.json')) continue;
      const stored = JSON.parse(await readFile(join(dir, name), 'utf8')) as StoredMessage;
      queue.#ready.push({ id: name.slice(0, -5), ...stored, body: Buffer.from(stored.body, 'base64'), redelivered: true });
    }
    return queue;
  }

  get depth(): number {
    return this.#ready.length;
  }

  /** Stores the message, then queues it; resolving is the confirm. */
  async publish(exchange: string, routingKey: string, body: Buffer, headers: Readonly<Record<string, unknown>>): Promise<void> {
    // Time first, so that file names sort in publish order across restarts.
    const id = `${Date.now().toString().padStart(15, '0')}-${String(this.#sequence++).padStart(8, '0')}-${randomBytes(4).toString('hex')}`;
    const stored: StoredMessage = { exchange, routingKey, body: body.toString('base64'), headers: { ...headers } };
    const path = join(this.dir, `${id}.json`);
    const temporary = `${path}.tmp-${randomBytes(4).toString('hex')}`;
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(JSON.stringify(stored));
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
    this.#ready.push({ id, exchange, routingKey, body, headers: stored.headers, redelivered: false });
    this.#pump();
  }

  /** Starts delivering to `handler`, with at most `concurrency` deliveries in flight. */
  consume(handler: QueueHandler, concurrency: number): void {
    this.#handler = handler;
    this.#concurrency = Math.max(1, concurrency);
    this.#pump();
  }

  /** Stops new deliveries and waits for those in flight; unsettled messages stay stored. */
  async drain(): Promise<void> {
    this.#handler = undefined;
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  #pump(): void {
    while (this.#handler && this.#inFlight.size < this.#concurrency && this.#ready.length > 0) {
      const message = this.#ready.shift()!;
      const handler = this.#handler;
      const delivery = this.#deliver(handler, message).finally(() => {
        this.#inFlight.delete(delivery);
        this.#pump();
      });
      this.#inFlight.add(delivery);
    }
  }

  async #deliver(handler: QueueHandler, message: QueuedMessage): Promise<void> {
    let settlement: Settlement;
    try {
      settlement = await handler(message);
    } catch {
      settlement = 'dead-letter';
    }
    if (settlement === 'retry') {
      settlement = await this.publish(message.exchange, message.routingKey, message.body, nextRetryHeaders(message.headers)).then(
        () => 'ack' as const,
        () => 'dead-letter' as const,
      );
    }
    const path = join(this.dir, `${message.id}.json`);
    if (settlement === 'ack') await rm(path, { force: true });
    else await rename(path, join(this.deadLetterDir, `${message.id}.json`)).catch(() => rm(path, { force: true }));
  }
}
