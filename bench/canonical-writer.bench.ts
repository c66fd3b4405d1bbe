/**
 * The canonical result writer under load: N generated rows (default 1,000,000) of six columns (a
 * bigint beyond 2^53, an exact decimal, a string, a timestamp, a boolean, a nested object) go
 * through the streaming writer into a sink that digests and discards every byte. It prints the
 * throughput, the document size and the process's peak RSS; run it under `/usr/bin/time -v` to
 * have the kernel's figure as well. Memory must not grow with N: compare --rows=100000 with the
 * default.
 *
 *   --mode=writer  CanonicalDocumentWriter alone (default)
 *   --mode=engine  the whole engine: plan + executeExtraction in store mode, rows generated lazily
 *                  by a template connector, written to a digest-and-discard ResultSink
 */
import { createHash } from 'node:crypto';
import { CanonicalDocumentWriter, createEngine, createTenantContext, ConnectionInput, JsonNumber } from '@fetcher/engine';
import type { ResultReference, ResultSink, ResultWriter, Row } from '@fetcher/engine';
import { MemoryConnectionStore, MemoryConnectorFactory, MemoryConnectorRegistry, TemplateConnector } from '@fetcher/engine/memory';

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [key, value = ''] = arg.replace(/^--/, '').split('=');
    return [key, value] as const;
  }),
);
const ROWS = Number(args.get('rows') ?? 1_000_000);
const MODE = args.get('mode') ?? 'writer';
const BASE = 2n ** 53n;
const EPOCH = Date.UTC(2026, 0, 1);

const gc = (globalThis as { gc?: () => void }).gc;
let liveHeapMax = 0;

/** With --expose-gc: every 20,000 rows, collect and note the live heap. */
function sample(i: number): void {
  if (!gc || i % 20_000 !== 0) return;
  gc();
  liveHeapMax = Math.max(liveHeapMax, process.memoryUsage().heapUsed);
}

function row(i: number): Row {
  return {
    id: BASE + BigInt(i),
    amount: new JsonNumber(`${i}.${String(i % 100).padStart(2, '0')}`),
    name: `customer-${i}`,
    created_at: timestamp(i),
    active: i % 2 === 0,
    profile: { tier: i % 5, tags: ['a', 'b'], address: { city: 'Lisbon', zip: String(10000 + (i % 90000)) } },
  };
}

const DAY_MS = 86_400_000;
let dayStart = Number.NaN;
let dayPrefix = '';

/**
 * Exactly `new Date(EPOCH + i * 1000).toISOString()`, but with one Date per day instead of per row:
 * toISOString alone took a sixth of the run, which measured the generator rather than the writer.
 */
function timestamp(i: number): string {
  const ms = EPOCH + i * 1000;
  const day = ms - (ms % DAY_MS);
  if (day !== dayStart) {
    dayStart = day;
    dayPrefix = new Date(day).toISOString().slice(0, 11); // YYYY-MM-DDT
  }
  const seconds = (ms - day) / 1000;
  return `${dayPrefix}${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}.000Z`;
}

function two(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}

/** Digests every byte and keeps none. */
class DigestSink {
  readonly hash = createHash('sha256');
  bytes = 0;
  chunks = 0;
  accept(chunk: Uint8Array): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    this.chunks++;
  }
}

async function viaWriter(sink: DigestSink): Promise<void> {
  const writer = new CanonicalDocumentWriter((chunk) => sink.accept(chunk));
  await writer.beginConfig('bench', ['events', 'empty']);
  for (let i = 0; i < ROWS; i++) {
    sample(i);
    await writer.write({ table: 'events', row: row(i) });
  }
  await writer.endConfig();
  await writer.finish();
}

async function viaEngine(sink: DigestSink): Promise<void> {
  const template = new TemplateConnector({
    rows: { events: [row(0)], empty: [] },
    largeRowFactory: (table) => (table === 'events' ? generate() : undefined),
  });
  const registry = new MemoryConnectorRegistry().register('memory', new MemoryConnectorFactory(template));
  const resultSink: ResultSink = {
    async openResultStream(): Promise<ResultWriter> {
      return {
        async write(chunk) {
          sink.accept(chunk);
        },
        async close(): Promise<ResultReference> {
          return { path: 'discarded', format: 'json', rowCount: 0, sizeBytes: sink.bytes, completedAt: new Date().toISOString() };
        },
        async abort() {},
      };
    },
  };
  const engine = createEngine({ connectorRegistry: registry, connectionStore: new MemoryConnectionStore(), resultSink, limits: { maxResultBytes: 4 * 2 ** 30 } });
  const tenant = createTenantContext('bench');
  await engine.createConnection(tenant, new ConnectionInput({ configName: 'bench', type: 'memory', host: 'h', port: 1, databaseName: 'd', userName: 'u' }));
  const plan = await engine.planExtraction(tenant, { mappedFields: { bench: { events: ['*'], empty: ['*'] } } });
  const result = await engine.executeExtraction(plan);
  if (result.reference?.rowCount !== ROWS) throw new Error(`expected ${ROWS} rows, got ${result.reference?.rowCount}`);
}

function* generate(): Generator<Row> {
  for (let i = 0; i < ROWS; i++) {
    sample(i);
    yield row(i);
  }
}

async function main(): Promise<void> {
  const sink = new DigestSink();
  const started = process.hrtime.bigint();
  await (MODE === 'engine' ? viaEngine(sink) : viaWriter(sink));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const mib = (n: number): string => (n / 2 ** 20).toFixed(1);
  const lines = [
    `mode              ${MODE}`,
    `rows              ${ROWS}`,
    `seconds           ${seconds.toFixed(2)}`,
    `rows/s            ${Math.round(ROWS / seconds)}`,
    `document          ${sink.bytes} bytes (${mib(sink.bytes)} MiB) in ${sink.chunks} chunks`,
    `sha256            ${sink.hash.digest('hex')}`,
    `peak RSS          ${mib(process.resourceUsage().maxRSS * 1024)} MiB (process.resourceUsage)`,
  ];
  if (gc) lines.push(`live heap max     ${mib(liveHeapMax)} MiB (after forced GC, every 20,000 rows)`);
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`canonical-writer bench failed: ${String(error)}\n`);
  process.exitCode = 1;
});
