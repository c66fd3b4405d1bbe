import type { ProbeResult, ReadinessProbe } from '@fetcher/platform';
import { DependencyGate, type GatedConsumer } from './dependency-gate';

class SwitchableProbe implements ReadinessProbe {
  readonly timeoutMs = 1_000;
  result: ProbeResult = { status: 'up' };
  constructor(readonly name: string) {}
  check(): Promise<ProbeResult> {
    return Promise.resolve(this.result);
  }
}

class RecordingConsumer implements GatedConsumer {
  readonly calls: string[] = [];
  failNext = false;
  resume(): Promise<void> {
    return this.#record('resume');
  }
  pause(): Promise<void> {
    return this.#record('pause');
  }
  #record(call: string): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      return Promise.reject(new Error('channel closed'));
    }
    this.calls.push(call);
    return Promise.resolve();
  }
}

/** Each look ends in a wait; the test releases them one by one, so it decides when the next look runs. */
class StepClock {
  readonly waits: number[] = [];
  #release: (() => void) | undefined;
  #waiting: (() => void) | undefined;
  readonly wait = (ms: number, signal: AbortSignal): Promise<void> => {
    this.waits.push(ms);
    this.#waiting?.();
    return new Promise((resolve) => {
      this.#release = resolve;
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  };
  /** Resolves once the gate has finished its current look and waits. */
  looked(): Promise<void> {
    return new Promise((resolve) => (this.#waiting = resolve));
  }
  async next(): Promise<void> {
    const looked = this.looked();
    this.#release?.();
    await looked;
  }
}

describe(DependencyGate.name, () => {
  const setup = () => {
    const mongodb = new SwitchableProbe('mongodb');
    const s3 = new SwitchableProbe('s3');
    const consumer = new RecordingConsumer();
    const clock = new StepClock();
    const logs: string[] = [];
    const sut = new DependencyGate([mongodb, s3], consumer, { log: (m) => logs.push(m), warn: (m) => logs.push(m) }, {
      openIntervalMs: 5_000,
      closedIntervalMs: 1_000,
      wait: clock.wait,
    });
    return { mongodb, s3, consumer, clock, logs, sut };
  };

  it('starts consuming at the first look when every dependency is up', async () => {
    const { sut, consumer, clock, logs } = setup();
    const looked = clock.looked();
    sut.start();
    await looked;
    expect(consumer.calls).toEqual(['resume']);
    expect(sut.open).toBe(true);
    expect(logs).toEqual(['work queue consumer started']);
    expect(clock.waits).toEqual([5_000]);
    await sut.stop();
  });

  it('does not consume while a dependency is down at startup, and starts once it is back', async () => {
    const { sut, mongodb, consumer, clock, logs } = setup();
    mongodb.result = { status: 'down', error: 'Topology is closed' };
    const looked = clock.looked();
    sut.start();
    await looked;
    await clock.next();
    expect(consumer.calls).toEqual([]);
    expect(sut.open).toBe(false);
    expect(logs).toEqual(['work queue consumer paused: waiting for mongodb']);
    expect(clock.waits).toEqual([1_000, 1_000]);

    mongodb.result = { status: 'up' };
    await clock.next();
    expect(consumer.calls).toEqual(['resume']);
    expect(logs).toEqual(['work queue consumer paused: waiting for mongodb', 'work queue consumer resumed: dependencies are back']);
    await sut.stop();
  });

  it('pauses when a dependency goes down or degrades later, once, and resumes after', async () => {
    const { sut, mongodb, s3, consumer, clock, logs } = setup();
    const looked = clock.looked();
    sut.start();
    await looked;
    s3.result = { status: 'degraded', error: 'slow' };
    mongodb.result = { status: 'down', error: 'gone' };
    await clock.next();
    await clock.next();
    expect(consumer.calls).toEqual(['resume', 'pause']);
    expect(logs.at(-1)).toBe('work queue consumer paused: waiting for mongodb, s3');
    s3.result = { status: 'up' };
    mongodb.result = { status: 'up' };
    await clock.next();
    expect(consumer.calls).toEqual(['resume', 'pause', 'resume']);
    expect(sut.open).toBe(true);
    await sut.stop();
  });

  it('tries again at the next look when the consumer could not be resumed', async () => {
    const { sut, consumer, clock } = setup();
    consumer.failNext = true;
    const looked = clock.looked();
    sut.start();
    await looked;
    expect(sut.open).toBe(false);
    await clock.next();
    expect(consumer.calls).toEqual(['resume']);
    expect(sut.open).toBe(true);
    await sut.stop();
  });

  it('stops without waiting for a check that does not answer', async () => {
    const { sut, mongodb, consumer } = setup();
    mongodb.check = () => new Promise(() => undefined); // ignores its signal, never settles
    sut.start();
    await sut.stop();
    expect(consumer.calls).toEqual([]);
  });

  it('stops looking once stopped', async () => {
    const { sut, clock } = setup();
    const looked = clock.looked();
    sut.start();
    await looked;
    await sut.stop();
    expect(clock.waits).toHaveLength(1);
  });
});
