import { randomBytes, randomUUID } from 'node:crypto';
import { completedPayload, failedPayload, jobEvent } from '../jobs/job-events';
import type { EventPublisher, OutgoingEvent } from '../ports/event-publisher.port';

/** An event as a subscriber of the events exchange (or reader of the event log) gets it. */
export interface ReceivedEvent {
  readonly routingKey: string;
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, unknown>>;
}

/**
 * A publisher under test and its subscriber's view. `received()` answers what has arrived so far,
 * without waiting: a publish that resolved MUST already be there (that is the confirm). `broken`
 * builds a publisher whose destination cannot take events, seen by the same subscriber.
 */
export interface EventPublisherUnderTest {
  readonly publisher: EventPublisher;
  received(): Promise<readonly ReceivedEvent[]>;
  broken(): EventPublisher | Promise<EventPublisher>;
}

const key = randomBytes(32);
const now = new Date('2026-03-01T10:00:00Z');
const context = { exchange: 'fetcher.events', source: 'fetcher-worker', key, signedTenant: '', eventTenant: 'single-tenant', now };

/** Header values as text: CloudEvents attributes travel as bytes, and a log writes them as their text. */
const asText = (headers: Readonly<Record<string, unknown>>) =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('utf8') : v]));

const completed = (jobId = randomUUID()): OutgoingEvent =>
  jobEvent(jobId, 'completed', completedPayload(jobId, { source: 'reporter', note: 'ünïcode ✓' }, { path: `external-data/${jobId}.json`, sizeBytes: 345, rowCount: 12, hmac: 'ab12' }, 678, now), { ...context, requestId: `req-${jobId}` });
const failed = (jobId = randomUUID()): OutgoingEvent => jobEvent(jobId, 'failed', failedPayload(jobId, { source: 'reporter' }, 'connect: refused'), context);

/**
 * What every EventPublisher must do, run against the RabbitMQ publisher and the standalone event
 * log alike: an event has arrived, unchanged, once `publish` resolves; events arrive in publish
 * order, every emission counts (a repaired event arrives again), and a destination that cannot take
 * the event makes `publish` reject. `make` is called once per test and returns a fresh subscriber.
 */
export function eventPublisherContract(make: () => EventPublisherUnderTest | Promise<EventPublisherUnderTest>): void {
  let sut: EventPublisherUnderTest;
  beforeEach(async () => {
    sut = await make();
  });

  it('has delivered the event unchanged once publish resolves: routing key, body bytes and headers', async () => {
    const event = completed();
    await sut.publisher.publish(event);
    const received = await sut.received();
    expect(received).toHaveLength(1);
    expect(received[0]?.routingKey).toBe('job.completed');
    expect(received[0]?.body.equals(event.body)).toBe(true);
    expect(asText(received[0]?.headers ?? {})).toMatchObject(asText(event.headers));
  });

  it('delivers events in publish order, and a repeated emission again', async () => {
    const first = completed();
    const second = failed();
    await sut.publisher.publish(first);
    await sut.publisher.publish(second);
    await sut.publisher.publish(first);
    const received = await sut.received();
    expect(received.map((e) => [e.routingKey, asText(e.headers)['ce-id']])).toEqual([
      ['job.completed', asText(first.headers)['ce-id']],
      ['job.failed', asText(second.headers)['ce-id']],
      ['job.completed', asText(first.headers)['ce-id']],
    ]);
    expect(received[1]?.body.toString('utf8')).toBe(second.body.toString('utf8'));
  });

  it('delivers each of many concurrent publishes exactly once', async () => {
    const events = Array.from({ length: 25 }, () => failed());
    await Promise.all(events.map((e) => sut.publisher.publish(e)));
    const ids = (await sut.received()).map((e) => asText(e.headers)['ce-id']);
    expect([...ids].sort()).toEqual(events.map((e) => asText(e.headers)['ce-id']).sort());
  });

  it('rejects when the destination cannot take the event', async () => {
    const broken = await sut.broken();
    await expect(broken.publish(completed())).rejects.toHaveProperty('message');
    expect(await sut.received()).toEqual([]);
  });
}
