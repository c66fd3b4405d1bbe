import { CircuitBreaker, CircuitOpenError } from './circuit-breaker';

describe(CircuitBreaker.name, () => {
  const setup = () => {
    let now = 1_000_000;
    const sut = new CircuitBreaker('rabbitmq', { now: () => now });
    return { sut, advance: (ms: number) => { now += ms; } };
  };
  const fail = () => Promise.reject(new Error('down'));

  it('opens after five consecutive failures, not after four, and a success resets the count', async () => {
    const { sut } = setup();
    for (let i = 0; i < 4; i++) await expect(sut.run(fail)).rejects.toThrow('down');
    await sut.run(() => Promise.resolve('ok'));
    for (let i = 0; i < 4; i++) await expect(sut.run(fail)).rejects.toThrow('down');
    expect(sut.state).toBe('closed');
    await expect(sut.run(fail)).rejects.toThrow('down');
    expect(sut.state).toBe('open');
    await expect(sut.run(() => Promise.resolve('never'))).rejects.toBeInstanceOf(CircuitOpenError);
  });

  it('turns half-open after the 30 s cool-down and admits exactly one trial', async () => {
    const { sut, advance } = setup();
    for (let i = 0; i < 5; i++) sut.recordFailure();
    advance(29_999);
    expect(sut.state).toBe('open');
    advance(1);
    expect(sut.state).toBe('half-open');
    expect(sut.tryAcquire()).toBe(true);
    expect(sut.tryAcquire()).toBe(false);
  });

  it('closes after a successful trial and reopens for a full cool-down after a failed one', async () => {
    const { sut, advance } = setup();
    for (let i = 0; i < 5; i++) sut.recordFailure();
    advance(30_000);
    await expect(sut.run(fail)).rejects.toThrow('down');
    expect(sut.state).toBe('open');
    advance(29_999);
    expect(sut.state).toBe('open');
    advance(1);
    await expect(sut.run(() => Promise.resolve(1))).resolves.toBe(1);
    expect(sut.state).toBe('closed');
  });

  it('ends an open breaker\'s cool-down on request: one trial at once, a failed one reopens it for a full cool-down', async () => {
    const { sut, advance } = setup();
    sut.endCoolDown();
    expect(sut.state).toBe('closed');
    for (let i = 0; i < 5; i++) sut.recordFailure();
    advance(1_000);
    sut.endCoolDown();
    expect(sut.state).toBe('half-open');
    expect(sut.tryAcquire()).toBe(true);
    expect(sut.tryAcquire()).toBe(false);
    sut.recordFailure();
    advance(29_999);
    expect(sut.state).toBe('open');
    advance(1);
    expect(sut.state).toBe('half-open');
  });

  it('gives a half-open trial slot back on a neutral outcome, without closing or counting', () => {
    const { sut, advance } = setup();
    for (let i = 0; i < 5; i++) sut.recordFailure();
    advance(30_000);
    expect(sut.tryAcquire()).toBe(true);
    sut.recordNeutral();
    expect(sut.state).toBe('half-open');
    expect(sut.tryAcquire()).toBe(true);
    expect(sut.tryAcquire()).toBe(false);
  });

  it('leaves a closed breaker\'s failure count alone on a neutral outcome', () => {
    const { sut } = setup();
    for (let i = 0; i < 4; i++) sut.recordFailure();
    sut.recordNeutral();
    sut.recordFailure();
    expect(sut.state).toBe('open');
  });
});
