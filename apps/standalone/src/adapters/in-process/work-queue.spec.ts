import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InProcessWorkQueue, type QueuedMessage, type Settlement } from './work-queue';

/** A handler that holds every delivery until the test settles it. */
function heldHandler() {
  const held: { message: QueuedMessage; settle: (s: Settlement) => void }[] = [];
  let notify: (() => void) | undefined;
  return {
    held,
    handler: (message: QueuedMessage) =>
      new Promise<Settlement>((settle) => {
        held.push({ message, settle });
        notify?.();
      }),
    /** Resolves once `count` deliveries are being held. */
    async until(count: number) {
      while (held.length < count) await new Promise<void>((resolve) => (notify = resolve));
    },
  };
}

describe(InProcessWorkQueue.name, () => {
  let dir: string;
  const open = () => InProcessWorkQueue.open(join(dir, 'queue'), join(dir, 'dead-letter'));
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fetcher-queue-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('delivers the exact bytes and headers, at most `concurrency` at a time, and forgets acked messages', async () => {
    const queue = await open();
    const h = heldHandler();
    queue.consume(h.handler, 2);
    for (let i = 0; i < 3; i++) await queue.publish('', 'work', Buffer.from(`{"n":${i}}`), { t: '1', 'x-retry-count': 0 });
    await h.until(2);
    expect(h.held).toHaveLength(2);
    expect(h.held[0]?.message).toMatchObject({ exchange: '', routingKey: 'work', headers: { t: '1', 'x-retry-count': 0 }, redelivered: false });
    expect(h.held[0]?.message.body.toString()).toBe('{"n":0}');
    h.held[0]?.settle('ack');
    await h.until(3);
    h.held[1]?.settle('ack');
    h.held[2]?.settle('dead-letter');
    await queue.drain();
    expect(readdirSync(join(dir, 'queue'))).toEqual([]);
    expect(readdirSync(join(dir, 'dead-letter'))).toHaveLength(1);
  });

  it('on retry, queues the same bytes and headers again with x-retry-count one higher, and forgets the original', async () => {
    const queue = await open();
    const h = heldHandler();
    queue.consume(h.handler, 1);
    await queue.publish('', 'work', Buffer.from('{"n":1}'), { t: '1', 'x-message-signature': 'ab', 'x-retry-count': 0 });
    await h.until(1);
    h.held[0]?.settle('retry');
    await h.until(2);
    expect(h.held[1]?.message).toMatchObject({ exchange: '', routingKey: 'work', headers: { t: '1', 'x-message-signature': 'ab', 'x-retry-count': 1 } });
    expect(h.held[1]?.message.body.toString()).toBe('{"n":1}');
    h.held[1]?.settle('ack');
    await queue.drain();
    expect(readdirSync(join(dir, 'queue'))).toEqual([]);
    expect(readdirSync(join(dir, 'dead-letter'))).toEqual([]);
  });

  it('redelivers unsettled messages after a restart, in publish order', async () => {
    const first = await open();
    await first.publish('', 'work', Buffer.from('a'), {});
    await first.publish('', 'work', Buffer.from('b'), {});
    const second = await open();
    expect(second.depth).toBe(2);
    const h = heldHandler();
    second.consume(h.handler, 1);
    await h.until(1);
    expect(h.held[0]?.message).toMatchObject({ redelivered: true });
    expect(h.held[0]?.message.body.toString()).toBe('a');
    h.held[0]?.settle('ack');
    await h.until(2);
    h.held[1]?.settle('ack');
    await second.drain();
    expect(readdirSync(join(dir, 'queue'))).toEqual([]);
  });

  it('dead-letters a delivery whose handler throws', async () => {
    const queue = await open();
    queue.consume(() => Promise.reject(new Error('boom')), 1);
    await queue.publish('', 'work', Buffer.from('x'), {});
    await queue.drain();
    expect(readdirSync(join(dir, 'dead-letter'))).toHaveLength(1);
  });
});
