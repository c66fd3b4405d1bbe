import { Lifecycle, SubsystemError, type Subsystem, withinBound } from './lifecycle';
import { resolveDrainDelaySec } from './run-gracefully';

function recorder() {
  const events: string[] = [];
  const sub = (name: string, overrides: Partial<Subsystem> = {}): Subsystem => ({
    name,
    start: async () => { events.push(`start ${name}`); },
    stop: async () => { events.push(`stop ${name}`); },
    ...overrides,
  });
  return { events, sub };
}

describe(Lifecycle.name, () => {
  it('starts subsystems in order and stops them in reverse, aborting the shared signal first', async () => {
    const { events, sub } = recorder();
    const sut = new Lifecycle();
    sut.register(sub('consumer'));
    sut.register(sub('sweep', { stop: async () => { events.push(`stop sweep (signal aborted: ${sut.signal.aborted})`); } }));
    await sut.onApplicationBootstrap();
    expect(await sut.stopAll()).toBe(true);
    expect(events).toEqual(['start consumer', 'start sweep', 'stop sweep (signal aborted: true)', 'stop consumer']);
    expect(await sut.stopAll()).toBe(true); // idempotent
    expect(events).toHaveLength(4);
  });

  it('stops what already started when one fails to start, and names the failed one', async () => {
    const { events, sub } = recorder();
    const sut = new Lifecycle();
    sut.register(sub('a'));
    sut.register(sub('b', { start: () => Promise.reject(new Error('EADDRINUSE')) }));
    sut.register(sub('c'));
    await expect(sut.onApplicationBootstrap()).rejects.toEqual(new SubsystemError('b', 'start'));
    expect(events).toEqual(['start a', 'stop a']);
  });

  it('reports a stop that fails or overruns its bound, and still stops the rest', async () => {
    jest.useFakeTimers();
    try {
      const { events, sub } = recorder();
      const sut = new Lifecycle();
      sut.register(sub('a'));
      sut.register(sub('hangs', { stop: () => new Promise(() => undefined), stopTimeoutMs: 1_000 }));
      await sut.onApplicationBootstrap();
      const stopping = sut.stopAll();
      await jest.advanceTimersByTimeAsync(1_000);
      expect(await stopping).toBe(false);
      expect(events).toEqual(['start a', 'start hangs', 'stop a']);
    } finally {
      jest.useRealTimers();
    }
  });

  it('refuses registration after startup, and tells listeners about drain and fatal failures', async () => {
    const sut = new Lifecycle();
    const seen: string[] = [];
    sut.onEvent((e) => seen.push(e.kind === 'fatal' ? `fatal: ${e.error.message}` : e.kind));
    await sut.onApplicationBootstrap();
    expect(() => sut.register(recorder().sub('late'))).toThrow('subsystem late registered after startup');
    sut.startDrain();
    sut.startDrain();
    sut.fail('consumer');
    expect(sut.draining).toBe(true);
    expect(seen).toEqual(['drain', 'fatal: subsystem consumer failed to keep running']);
  });
});

describe(withinBound.name, () => {
  it('is true for work that succeeds in time and false for work that fails', async () => {
    expect(await withinBound(Promise.resolve(1), 1_000)).toBe(true);
    expect(await withinBound(Promise.reject(new Error('x')), 1_000)).toBe(false);
  });
});

describe(resolveDrainDelaySec.name, () => {
  it.each([[undefined, 12], [0, 12], [-5, 1], [3, 3], [NaN, 12]])('reads %s as %s s', (value, expected) => expect(resolveDrainDelaySec(value)).toBe(expected));
});
