/**
 * The job list (`GET /v1/fetcher`) at scale: seeds N jobs (default 10,000 and 100,000) into a MongoDB,
 * creates the Manager's job indexes, then times the list query the Manager's repository sends
 * (filter, sort `created_at -1, _id -1`, limit 21 for a page of 20) for the first page, a page deep in
 * the keyset, and each filter. Prints p50/p99 per case over `--samples` reads.
 *
 * By default the MongoDB is the in-process wire-protocol test server from tools/ (what the
 * integration tier uses); `--uri=mongodb://…` aims it at a real server instead.
 *
 *   npm run build -w @fetcher/contracts -w @fetcher/mongo-test-server && npx tsc -p bench/tsconfig.json
 *   node bench/dist/job-list.bench.js [--sizes=10000,100000] [--samples=200] [--uri=mongodb://127.0.0.1:27017]
 */
import { randomUUID } from 'node:crypto';
import { createIndexArgs, encodeNewJob, indexesOwnedBy, JOB_INDEXES, uuidToBinary } from '@fetcher/contracts';
import { withMongo } from '@fetcher/mongo-test-server';
import { type Binary, type Document, type Filter, MongoClient } from 'mongodb';
import { v7 as uuidv7 } from 'uuid';
import { percentile } from './support/percentile';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const SIZES = (args.get('sizes') ?? '10000,100000').split(',').map(Number);
const SAMPLES = Number(args.get('samples') ?? 200);
const STATUSES = ['completed', 'completed', 'completed', 'failed', 'canceled', 'pending', 'processing'];
const SOURCES = ['reporter', 'billing', 'crm', 'ledger'];
const DATASOURCES = ['pg-main', 'mysql-x', 'mongo-y', 'oracle-z', 'sql-w'];

async function main(): Promise<void> {
  const external = args.get('uri');
  const target = external ? undefined : await withMongo();
  const client = await new MongoClient(external ?? target!.uri).connect();
  try {
    for (const size of SIZES) await run(client, size);
  } finally {
    await client.close();
    await target?.close();
  }
}

async function run(client: MongoClient, size: number): Promise<void> {
  const db = client.db(`bench_job_list_${randomUUID().slice(0, 8)}`);
  const jobs = db.collection<{ _id: Binary } & Document>('job');
  for (const index of indexesOwnedBy('manager', JOB_INDEXES)) await jobs.createIndex(...createIndexArgs(index));
  const start = Date.UTC(2026, 0, 1);
  const seedStarted = performance.now();
  for (let batch = 0; batch < size; batch += 1_000) {
    const docs = [];
    for (let i = batch; i < Math.min(size, batch + 1_000); i++) {
      const status = STATUSES[i % STATUSES.length];
      docs.push(encodeNewJob({
        id: uuidv7(),
        status,
        mappedFields: { [DATASOURCES[i % DATASOURCES.length]]: { t: ['id'] } },
        metadata: { source: SOURCES[i % SOURCES.length] },
        requestHash: randomUUID(),
        // Several jobs share a millisecond now and then: ties are what the `_id` key breaks.
        createdAt: new Date(start + Math.floor(i * 0.7) * 1_000),
        completedAt: null,
        dispatchedAt: null,
        dispatchAttempts: 0,
      }));
    }
    await jobs.insertMany(docs);
  }
  const seedMs = performance.now() - seedStarted;

  const middle = await jobs.find({}, { sort: { created_at: -1, _id: -1 }, skip: Math.floor(size / 2), limit: 1 }).next();
  const after: Filter<{ _id: Binary } & Document> = {
    $or: [{ created_at: { $lt: middle!.created_at } }, { created_at: middle!.created_at, _id: { $lt: uuidToBinary(randomUUID()) } }],
  };
  const cases: [string, Filter<{ _id: Binary } & Document>][] = [
    ['first page, no filter', {}],
    ['page at the middle (cursor)', after],
    ['status in (failed, canceled)', { status: { $in: ['failed', 'canceled'] } }],
    ['product (metadata.source)', { 'metadata.source': 'billing' }],
    ['configName (datasources)', { datasources: 'oracle-z' }],
    ['product + status + range', { 'metadata.source': 'crm', status: { $in: ['completed'] }, created_at: { $gte: new Date(start), $lt: new Date(start + size * 350) } }],
  ];
  console.log(`\n${size.toLocaleString('en')} jobs (seeded in ${(seedMs / 1000).toFixed(1)} s), page of 20, ${SAMPLES} reads per case`);
  for (const [name, filter] of cases) {
    const times: number[] = [];
    let returned = 0;
    for (let i = 0; i < SAMPLES; i++) {
      const t0 = performance.now();
      const page = await jobs.find(filter, { sort: { created_at: -1, _id: -1 }, limit: 21 }).toArray();
      times.push(performance.now() - t0);
      returned = page.length;
    }
    console.log(`  ${name.padEnd(32)} p50 ${percentile(times, 50).toFixed(2).padStart(8)} ms   p99 ${percentile(times, 99).toFixed(2).padStart(8)} ms   (${returned} docs)`);
  }
  await db.dropDatabase();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
