import type { Channel, GetMessage } from 'amqplib';

/** Takes every message waiting on `queue` (no-ack), in order: what the specs check was published. */
export async function drainQueue(channel: Channel, queue: string): Promise<GetMessage[]> {
  const got: GetMessage[] = [];
  for (;;) {
    const message = await channel.get(queue, { noAck: true });
    if (!message) return got;
    got.push(message);
  }
}
