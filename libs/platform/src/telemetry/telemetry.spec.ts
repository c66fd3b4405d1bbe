import { observabilityFromTracer, startTelemetry } from './telemetry';

describe(startTelemetry.name, () => {
  it('is a no-op when disabled: spans do not record and nothing is exported', async () => {
    const telemetry = startTelemetry({ enabled: false, serviceName: 'fetcher-test' });
    expect(telemetry.enabled).toBe(false);
    const span = telemetry.tracer.startSpan('x');
    expect(span.isRecording()).toBe(false);
    span.end();
    observabilityFromTracer(telemetry.tracer).startSpan('engine.plan', { tables: 2 }).end({ category: 'validation' });
    await expect(telemetry.shutdown()).resolves.toBeUndefined();
  });
});
