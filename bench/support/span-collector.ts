/**
 * A minimal OTLP/HTTP trace receiver for benches: the apps run with `ENABLE_TELEMETRY=true` and
 * `OTEL_EXPORTER_OTLP_ENDPOINT` pointing here, and their spans (OTLP JSON, which the HTTP exporter
 * sends) are kept in memory, grouped by trace. One job is one trace: the Manager's HTTP span is the
 * root, the publish carries `traceparent` to the Worker's consumer span.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';

export interface CollectedSpan {
  readonly service: string;
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  /** Milliseconds since the epoch, fractional. */
  readonly start: number;
  readonly end: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
}

interface OtlpValue { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean }
interface OtlpSpan {
  traceId: string; spanId: string; parentSpanId?: string; name: string;
  startTimeUnixNano: string | number; endTimeUnixNano: string | number;
  attributes?: { key: string; value: OtlpValue }[];
}
interface OtlpBody {
  resourceSpans?: { resource?: { attributes?: { key: string; value: OtlpValue }[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

function scalar(value: OtlpValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.boolValue ?? '';
}

const millis = (nanos: string | number): number => Number(BigInt(nanos) / 1000n) / 1000;

export class SpanCollector {
  readonly #byTrace = new Map<string, CollectedSpan[]>();
  #server: Server | undefined;
  #received = 0;

  /** Starts listening; resolves to the endpoint to give as `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  async start(): Promise<string> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        try {
          this.#take(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpBody);
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        } catch {
          res.writeHead(400).end();
        }
      });
    });
    this.#server = server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  }

  get received(): number {
    return this.#received;
  }

  trace(traceId: string): readonly CollectedSpan[] {
    return this.#byTrace.get(traceId) ?? [];
  }

  traces(): IterableIterator<readonly CollectedSpan[]> {
    return this.#byTrace.values();
  }

  clear(): void {
    this.#byTrace.clear();
  }

  async close(): Promise<void> {
    if (!this.#server) return;
    this.#server.close();
    await once(this.#server, 'close');
  }

  #take(body: OtlpBody): void {
    for (const resource of body.resourceSpans ?? []) {
      const service = String(scalar(resource.resource?.attributes?.find((a) => a.key === 'service.name')?.value ?? {}));
      for (const scope of resource.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          const attributes: Record<string, string | number | boolean> = {};
          for (const a of span.attributes ?? []) attributes[a.key] = scalar(a.value);
          const collected: CollectedSpan = {
            service, name: span.name, traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId ?? '',
            start: millis(span.startTimeUnixNano), end: millis(span.endTimeUnixNano), attributes,
          };
          const list = this.#byTrace.get(span.traceId) ?? [];
          list.push(collected);
          this.#byTrace.set(span.traceId, list);
          this.#received++;
        }
      }
    }
  }
}
