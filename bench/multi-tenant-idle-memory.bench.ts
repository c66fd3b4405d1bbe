/**
 * The Worker's memory with many known tenants and no jobs: the tenant-manager test server lists
 * `--tenants` active tenants (default 100), each with its own vhost and database; the built Worker
 * starts in multi-tenant mode, its initial sync starts a consumer per tenant, and once every one is
 * consuming the bench watches it idle for `--settle` seconds (long enough for the event repairer's
 * first pass over every tenant, every 30 s, to open their database clients). Then the same Worker
 * build with one tenant. The two alternate (ABBA) for `--rounds` rounds, each on a fresh stack.
 *
 * Figures come from the Worker's own `/metrics` (prom-client's process and V8 metrics): RSS at the
 * end of the settle, and the smallest heap used seen during it (the nearest to the live heap without
 * forcing a GC in the Worker), with the tenant pools' sizes.
 *
 * Build first (`npm run build`, then `npx tsc -p bench/tsconfig.json`), then:
 *
 *   node bench/dist/multi-tenant-idle-memory.bench.js [--tenants=100] [--settle=40] [--rounds=2]
 */
import { startMultiTenantStack } from './support/multi-tenant-stack';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const TENANTS = Number(args.get('tenants') ?? 100);
const SETTLE_SEC = Number(args.get('settle') ?? 40);
const ROUNDS = Number(args.get('rounds') ?? 2);

const out = (line: string): boolean => process.stdout.write(`${line}\n`);
const MiB = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

interface Sample {
  readonly tenants: number;
  readonly startSec: number;
  readonly rss: number;
  readonly maxRss: number;
  readonly heapUsedMin: number;
  readonly heapTotal: number;
  readonly mongoPools: number;
  readonly amqpPools: number;
}

async function measure(tenants: number): Promise<Sample> {
  const started = process.hrtime.bigint();
  const stack = await startMultiTenantStack({ tenants, manager: false });
  try {
    const startSec = Number(process.hrtime.bigint() - started) / 1e9;
    let heapUsedMin = Infinity;
    let maxRss = 0;
    for (const end = Date.now() + SETTLE_SEC * 1000; Date.now() < end;) {
      heapUsedMin = Math.min(heapUsedMin, await stack.metric('nodejs_heap_size_used_bytes'));
      maxRss = Math.max(maxRss, await stack.metric('process_resident_memory_bytes'));
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const consuming = await stack.metric('worker_tenant_consumer_active');
    if (consuming !== tenants) throw new Error(`the Worker consumes ${consuming} of ${tenants} tenants after the settle`);
    return {
      tenants, startSec, heapUsedMin, maxRss,
      rss: await stack.metric('process_resident_memory_bytes'),
      heapTotal: await stack.metric('nodejs_heap_size_total_bytes'),
      mongoPools: await stack.metric('worker_tenant_pool_size{pool="mongodb"}'),
      amqpPools: await stack.metric('worker_tenant_pool_size{pool="rabbitmq"}'),
    };
  } finally {
    await stack.close();
  }
}

const line = (s: Sample): string =>
  `| ${s.tenants} | ${MiB(s.rss)} | ${MiB(s.maxRss)} | ${MiB(s.heapUsedMin)} | ${MiB(s.heapTotal)} | ${s.mongoPools} | ${s.amqpPools} | ${s.startSec.toFixed(1)} s |`;

async function main(): Promise<void> {
  out(`Worker idle in multi-tenant mode: ${TENANTS} tenants vs 1, ${SETTLE_SEC} s settle after the initial sync, ${ROUNDS} rounds (Node ${process.version})`);
  out('| Tenants | RSS at end | RSS max | Heap used (min) | Heap total | DB clients open | Vhost connections | Stack up in |');
  out('|---|---|---|---|---|---|---|---|');
  const samples: Sample[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (const tenants of r % 2 === 0 ? [TENANTS, 1] : [1, TENANTS]) {
      const sample = await measure(tenants);
      samples.push(sample);
      out(line(sample));
    }
  }
  const mean = (n: number, pick: (s: Sample) => number) => {
    const of = samples.filter((s) => s.tenants === n);
    return of.reduce((a, s) => a + pick(s), 0) / of.length;
  };
  const rssDelta = mean(TENANTS, (s) => s.rss) - mean(1, (s) => s.rss);
  const heapDelta = mean(TENANTS, (s) => s.heapUsedMin) - mean(1, (s) => s.heapUsedMin);
  out(`${TENANTS} tenants vs 1 (means): RSS ${MiB(mean(TENANTS, (s) => s.rss))} vs ${MiB(mean(1, (s) => s.rss))} (+${MiB(rssDelta)}, ${(rssDelta / (TENANTS - 1) / 1024).toFixed(0)} KiB per extra tenant); `
    + `heap used ${MiB(mean(TENANTS, (s) => s.heapUsedMin))} vs ${MiB(mean(1, (s) => s.heapUsedMin))} (+${MiB(heapDelta)}, ${(heapDelta / (TENANTS - 1) / 1024).toFixed(0)} KiB per extra tenant)`);
}

main().catch((error: unknown) => {
  process.stderr.write(`multi-tenant idle memory bench failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exitCode = 1;
});
