import type { Telemetry } from '@fetcher/platform';
import { BusySpan } from './busy-span';

/** A telemetry whose tracer records the spans it is asked to start and end. */
function recordingTelemetry(): { telemetry: Telemetry; spans: { name: string; startTime: Date; busyMs: number; ended: boolean }[] } {
  const spans: { name: string; startTime: Date; busyMs: number; ended: boolean }[] = [];
  const tracer = {
    startSpan(name: string, options: { startTime: Date; attributes: Record<string, number> }) {
      const span = { name, startTime: options.startTime, busyMs: options.attributes['fetcher.busy_ms'], ended: false };
      spans.push(span);
      return { end: () => (span.ended = true) };
    },
  };
  return { telemetry: { enabled: true, tracer, flush: () => Promise.resolve(), shutdown: () => Promise.resolve() } as unknown as Telemetry, spans };
}

function spin(ms: number): void {
  const until = process.hrtime.bigint() + BigInt(ms * 1e6);
  while (process.hrtime.bigint() < until) { /* busy on purpose: the span counts time spent inside */ }
}

describe('BusySpan', () => {
  it('emits one span from the first piece with the time spent inside the pieces, not the gaps', async () => {
    const { telemetry, spans } = recordingTelemetry();
    const sut = new BusySpan(telemetry, 'result.encrypt');
    const before = Date.now();
    expect(sut.time(() => { spin(3); return 7; })).toBe(7);
    await new Promise<void>((resolve) => setImmediate(resolve));
    await sut.timeAsync(async () => { spin(3); await Promise.resolve(); });
    sut.end();
    sut.end();

    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({ name: 'result.encrypt', ended: true });
    expect(spans[0].startTime.getTime()).toBeGreaterThanOrEqual(before);
    expect(spans[0].busyMs).toBeGreaterThanOrEqual(6);
  });

  it('counts a piece that throws, and rethrows', () => {
    const { telemetry, spans } = recordingTelemetry();
    const sut = new BusySpan(telemetry, 'connector.read');
    expect(() => sut.time(() => { spin(2); throw new Error('boom'); })).toThrow('boom');
    sut.end();
    expect(spans[0].busyMs).toBeGreaterThanOrEqual(2);
  });

  it('emits nothing when no piece ran, and nothing without telemetry', () => {
    const { telemetry, spans } = recordingTelemetry();
    new BusySpan(telemetry, 'connector.read').end();
    const off = new BusySpan(null, 'connector.read');
    off.time(() => undefined);
    off.end();
    expect(spans).toHaveLength(0);
    expect(off.busyMs).toBeGreaterThanOrEqual(0);
  });
});
