import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { type AddressInfo } from 'node:net';
import { PlatformModule } from '../platform.module';
import { extractTraceContext, injectTraceHeaders, observabilityFromTracer, SpanKind, startTelemetry, withSpan } from './telemetry';

// Telemetry registers process-wide OpenTelemetry globals, so each test starts and shuts down its own.
// The OTLP/HTTP export itself is tested in a real process (test/e2e/platform-telemetry.e2e-spec.ts):
// the exporter loads node:http through import(), which jest's CommonJS sandbox cannot run.
describe('telemetry', () => {
  it('carries the trace from a published message to its consumer', async () => {
    const exporter = new InMemorySpanExporter();
    const telemetry = startTelemetry({ enabled: true, serviceName: 'fetcher-test', exporter });
    try {
      const headers: Record<string, unknown> = { jobId: 'j-1' };
      await withSpan(telemetry.tracer, 'publish fetcher.work', { kind: SpanKind.PRODUCER }, async () => { injectTraceHeaders(headers); });
      expect(headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      await withSpan(telemetry.tracer, 'consume fetcher.work', { kind: SpanKind.CONSUMER, parent: extractTraceContext(headers) }, async () => {
        observabilityFromTracer(telemetry.tracer).startSpan('engine.plan').end();
      });
      await telemetry.flush();
      const spans = exporter.getFinishedSpans();
      expect(spans.map((s) => s.name)).toEqual(['publish fetcher.work', 'engine.plan', 'consume fetcher.work']);
      expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
      const consume = spans.find((s) => s.name === 'consume fetcher.work')!;
      expect(spans.find((s) => s.name === 'engine.plan')!.parentSpanContext?.spanId).toBe(consume.spanContext().spanId);
    } finally {
      await telemetry.shutdown();
    }
  });

  it('gives each HTTP request a server span that continues the caller\'s traceparent', async () => {
    const exporter = new InMemorySpanExporter();
    const telemetry = startTelemetry({ enabled: true, serviceName: 'fetcher-test', exporter });
    @Module({ imports: [PlatformModule.forRoot({ service: 'manager', version: '1', deploymentMode: 'local', drainDelaySec: 0, probes: [], telemetry })] })
    class TracedModule {}
    const app = await NestFactory.create<NestFastifyApplication>(TracedModule, new FastifyAdapter(), { logger: false });
    try {
      await app.listen(0, '127.0.0.1');
      const url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      await (await fetch(`${url}/readyz`, { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } })).text();
      await app.close();
      await telemetry.flush();
      const span = exporter.getFinishedSpans().find((s) => s.name === 'GET /readyz');
      expect(span?.spanContext().traceId).toBe(traceId);
      expect(span?.kind).toBe(SpanKind.SERVER);
      expect(span?.attributes).toMatchObject({ 'http.route': '/readyz', 'http.response.status_code': 200 });
    } finally {
      await app.close();
      await telemetry.shutdown();
    }
  });
});
