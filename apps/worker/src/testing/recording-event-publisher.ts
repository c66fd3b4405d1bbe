import type { EventPublisher, OutgoingEvent } from '../ports/event-publisher.port';

/** Records what it was given; throws `failWith` (once per call) while set. */
export class RecordingEventPublisher implements EventPublisher {
  readonly published: OutgoingEvent[] = [];
  failWith: Error | undefined;

  publish(event: OutgoingEvent): Promise<void> {
    if (this.failWith) return Promise.reject(this.failWith);
    this.published.push(event);
    return Promise.resolve();
  }

  ids(): string[] {
    return this.published.map((e) => String(e.headers['ce-id']));
  }
}
