import {
  context, propagation, type Span as OtelSpan, SpanKind, SpanStatusCode, trace, type Context, type Tracer,
} from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace';

export interface TelemetryOptions {
  /** `ENABLE_TELEMETRY`. Off: no SDK is loaded and every tracer is OpenTelemetry's no-op. */
  readonly enabled: boolean;
  readonly serviceName: string;
  readonly serviceVersion?: string;
  readonly environment?: string;
  /** `OTEL_EXPORTER_OTLP_ENDPOINT`, the collector's base URL; traces go to `<endpoint>/v1/traces`. */
  readonly endpoint?: string;
  /** Replaces the OTLP exporter (tests). */
  readonly exporter?: SpanExporter;
}

export interface Telemetry {
  readonly enabled: boolean;
  readonly tracer: Tracer;
  /** Exports the spans still batched. */
  flush(): Promise<void>;
  /** Flushes pending spans and stops exporting. Call it last during shutdown. */
  shutdown(): Promise<void>;
}

/**
 * Starts tracing for the process: W3C trace context, spans batched and exported over OTLP/HTTP.
 * Disabled, it loads nothing and costs nothing beyond OpenTelemetry's no-op API calls.
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  if (!options.enabled) {
    return { enabled: false, tracer: trace.getTracer(options.serviceName), flush: () => Promise.resolve(), shutdown: () => Promise.resolve() };
  }
  // Loaded only when enabled, so a process without telemetry never pays for the SDK.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const sdk = require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace');
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks') as typeof import('@opentelemetry/context-async-hooks');
  const { W3CTraceContextPropagator } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  /* eslint-enable @typescript-eslint/no-require-imports */

  const exporter = options.exporter
    ?? new OTLPTraceExporter(options.endpoint ? { url: `${options.endpoint.replace(/\/+$/, '')}/v1/traces` } : {});
  const provider = new sdk.TracerProvider({
    resource: resourceFromAttributes({
      'service.name': options.serviceName,
      ...(options.serviceVersion ? { 'service.version': options.serviceVersion } : {}),
      ...(options.environment ? { 'deployment.environment.name': options.environment } : {}),
    }),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter })],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return {
    enabled: true,
    tracer: provider.getTracer(options.serviceName, options.serviceVersion),
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      try {
        await provider.shutdown();
      } finally {
        // Unregister even when the last export failed, so a later start (tests) can register again.
        trace.disable();
        propagation.disable();
        context.disable();
      }
    },
  };
}

type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

/** The engine's observability port, restated here because the platform imports no other library. */
export interface ObservabilityPort {
  startSpan(name: string, attributes?: SpanAttributes): { end(error?: { readonly category?: string; readonly message?: string }): void };
}

/**
 * Adapts a tracer to the engine's observability port: each engine step becomes a child span of
 * whatever is active (the HTTP request or the consumed message). Errors set the span's status with
 * the error category only; messages may quote data and stay out of traces.
 */
export function observabilityFromTracer(tracer: Tracer): ObservabilityPort {
  return {
    startSpan(name, attributes) {
      const span = tracer.startSpan(name, { attributes: { ...attributes } });
      return {
        end(error) {
          if (error) {
            span.setStatus({ code: SpanStatusCode.ERROR, message: error.category ?? 'error' });
            if (error.category) span.setAttribute('fetcher.error.category', error.category);
          }
          span.end();
        },
      };
    },
  };
}

/** Adds `traceparent`/`tracestate` of the active span to outgoing message headers. */
export function injectTraceHeaders(headers: Record<string, unknown>, from: Context = context.active()): Record<string, unknown> {
  const carrier: Record<string, string> = {};
  propagation.inject(from, carrier);
  return Object.assign(headers, carrier);
}

/** The trace context carried by incoming message or request headers (string values only). */
export function extractTraceContext(headers: Readonly<Record<string, unknown>> | undefined): Context {
  const carrier: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (typeof value === 'string') carrier[name.toLowerCase()] = value;
    else if (Buffer.isBuffer(value)) carrier[name.toLowerCase()] = value.toString('utf8');
  }
  return propagation.extract(context.active(), carrier);
}

/**
 * Runs `work` inside a span (a consumed message: `SpanKind.CONSUMER` with the sender's context as
 * parent; a publish: `PRODUCER`), ending it with the outcome.
 */
export async function withSpan<T>(
  tracer: Tracer, name: string, options: { kind?: SpanKind; parent?: Context; attributes?: SpanAttributes },
  work: (span: OtelSpan) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: { ...options.attributes } }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

export { SpanKind };
