/** One job event as it goes on the wire: the body is already final and the headers already signed. */
export interface OutgoingEvent {
  readonly routingKey: string;
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, unknown>>;
}

/** Publishes on the events exchange. MUST resolve only once the broker confirmed the message. */
export interface EventPublisher {
  publish(event: OutgoingEvent): Promise<void>;
}
export const EVENT_PUBLISHER = Symbol('EventPublisher');
