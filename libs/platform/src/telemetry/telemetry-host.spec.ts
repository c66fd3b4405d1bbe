import { type Telemetry, type TelemetryOptions } from './telemetry';
import { bootTelemetry, TelemetryShutdown, traced } from './telemetry-host';

function fakeTelemetry(): Telemetry & { shutdowns: number } {
  const fake = {
    enabled: true,
    shutdowns: 0,
    tracer: { startSpan: () => { throw new Error('no span expected'); } } as unknown as Telemetry['tracer'],
    flush: () => Promise.resolve(),
    shutdown: () => {
      fake.shutdowns++;
      return Promise.resolve();
    },
  };
  return fake;
}

describe('bootTelemetry', () => {
  it('starts nothing when telemetry is off', () => {
    const start = jest.fn<Telemetry, [TelemetryOptions]>();
    expect(bootTelemetry({ enabled: false, serviceName: 'fetcher-manager', endpoint: 'http://127.0.0.1:4318' }, start)).toBeNull();
    expect(start).not.toHaveBeenCalled();
  });

  it('starts tracing with the configured resource and endpoint when on', () => {
    const telemetry = fakeTelemetry();
    const start = jest.fn<Telemetry, [TelemetryOptions]>(() => telemetry);
    const settings = { enabled: true, serviceName: 'fetcher-manager', serviceVersion: '1.2.3', environment: 'staging', endpoint: 'http://127.0.0.1:4318' };
    expect(bootTelemetry(settings, start)).toBe(telemetry);
    expect(start).toHaveBeenCalledWith(settings);
  });
});

describe('traced', () => {
  it('off, runs the work as a plain call without touching any tracer', async () => {
    await expect(traced(null, 'publish q', {}, () => Promise.resolve(42))).resolves.toBe(42);
  });
});

describe('TelemetryShutdown', () => {
  it('flushes and stops tracing when the app closes, and does nothing when off', async () => {
    const telemetry = fakeTelemetry();
    await new TelemetryShutdown(telemetry).onApplicationShutdown();
    expect(telemetry.shutdowns).toBe(1);
    await expect(new TelemetryShutdown(null).onApplicationShutdown()).resolves.toBeUndefined();
  });

  it('does not hold the shutdown when the collector never answers', async () => {
    jest.useFakeTimers();
    try {
      const stuck = { ...fakeTelemetry(), shutdown: () => new Promise<void>(() => undefined) };
      const closing = new TelemetryShutdown(stuck).onApplicationShutdown();
      await jest.advanceTimersByTimeAsync(3_000);
      await expect(closing).resolves.toBeUndefined();
    } finally {
      jest.useRealTimers();
    }
  });
});
