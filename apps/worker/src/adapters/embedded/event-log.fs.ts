import { appendFile } from 'node:fs/promises';
import type { EventPublisher, OutgoingEvent } from '../../ports/event-publisher.port';

/**
 * Job events of the embedded Worker (the standalone service), appended as JSON lines to `<dataDir>/events.jsonl`: one line
 * per emission, with the routing key, the headers (CloudEvents attributes and signature, byte values
 * as text) and the body. A repeated emission (the repairer) appears again with the same `ce-id`,
 * as a subscriber of the events exchange would see it.
 */
export class FileEventLog implements EventPublisher {
  constructor(private readonly path: string) {}

  async publish(event: OutgoingEvent): Promise<void> {
    const headers = Object.fromEntries(Object.entries(event.headers).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('utf8') : v]));
    const line = JSON.stringify({ routingKey: event.routingKey, headers, body: JSON.parse(event.body.toString('utf8')) as unknown });
    await appendFile(this.path, `${line}\n`, { mode: 0o600 });
  }
}
