/**
 * 10,000 generated hostile messages (test/e2e/support/hostile-messages.ts) on the work queue of the
 * built Worker, interleaved with valid jobs (some delivered twice) against the machine's PostgreSQL
 * and RabbitMQ, with s3rver and the MongoDB test server in this process. Prints, per rejection
 * reason, how many messages deserved it, how many the Worker's counter moved by and how many were
 * logged with it; the messages whose logged reason differs from the expected one; the valid jobs'
 * outcome; the queue after the Worker stopped; and the throughput from the first publish to the
 * last dead letter and the last completed job.
 *
 * Build first: `npm run build`, then `npx tsc -p bench/hostile/tsconfig.json`. From the repository root:
 *
 *   node bench/hostile/dist/bench/hostile/messages.bench.js [--messages=10000] [--valid=200] [--seed=20261206]
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import { Client } from 'pg';
import { countByReason, hostileMessages, type HostileContext, type HostileMessage, signedHeaders, sortedJson, validBody } from '../../test/e2e/support/hostile-messages';
import { INTERNAL_HMAC, jobDoc, seedConnection, seedJob, startWorkerWorld, until } from '../../test/e2e/support/worker-harness';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const MESSAGES = Number(args.get('messages') ?? 10_000);
const VALID = Number(args.get('valid') ?? 200);
const SEED = Number(args.get('seed') ?? 20_261_206);
const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' };
const out = (line: string): boolean => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const schema = `hostile_bench_${randomUUID().slice(0, 8)}`;
  const pg = new Client(PG);
  await pg.connect();
  await pg.query(`CREATE SCHEMA ${schema}`);
  await pg.query(`CREATE TABLE ${schema}.items (id int PRIMARY KEY)`);
  await pg.query(`INSERT INTO ${schema}.items SELECT generate_series(1, 30)`);
  const world = await startWorkerWorld();
  await seedConnection(world.db, { configName: 'pg-main', type: 'POSTGRESQL', host: PG.host, port: PG.port, database: PG.database, user: PG.user, password: 'trust' });

  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const worker = spawn(process.execPath, ['--max-semi-space-size=4', join(process.cwd(), 'apps', 'worker', 'dist', 'main.js')], {
    env: { PATH: process.env.PATH ?? '', ...world.env({ HEALTH_PORT: String(port), LOG_LEVEL: 'warn' }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  worker.stdout.on('data', (c: Buffer) => (output += c.toString()));
  worker.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const base = `http://127.0.0.1:${port}`;
  await until(() => fetch(`${base}/health`).then((r) => r.status === 200, () => false), 60_000, 'the Worker to start');

  const metrics = async (): Promise<Record<string, number>> => {
    const text = await (await fetch(`${base}/metrics`)).text();
    return Object.fromEntries([...text.matchAll(/^fetcher_worker_messages_rejected_total\{reason="([^"]+)"\} (\d+)/gm)].map((m) => [m[1], Number(m[2])]));
  };

  try {
    const ctx: HostileContext = { key: INTERNAL_HMAC, queue: world.workQueue, datasource: 'pg-main', table: `${schema}.items` };
    const generated = Date.now();
    const hostile = hostileMessages(ctx, MESSAGES, SEED, 8);
    out(`generated ${hostile.length} hostile messages in ${Date.now() - generated} ms (seed ${SEED})`);
    const valid: { jobId: string; body: Buffer; headers: Record<string, unknown> }[] = [];
    for (let i = 0; i < VALID; i++) {
      const jobId = randomUUID();
      await seedJob(world.db, jobId, { 'pg-main': { [`${schema}.items`]: ['id'] } });
      const body = Buffer.from(sortedJson(validBody(ctx, jobId)));
      valid.push({ jobId, body, headers: signedHeaders(ctx, body) });
    }
    const before = await metrics();

    const publish = async (m: Pick<HostileMessage, 'body' | 'headers' | 'contentType' | 'contentEncoding'>, requestId: string) => {
      const ok = world.channel.sendToQueue(world.workQueue, m.body, {
        persistent: true,
        contentType: m.contentType ?? 'application/json',
        ...(m.contentEncoding === undefined ? {} : { contentEncoding: m.contentEncoding }),
        headers: { ...m.headers, 'X-Request-Id': requestId },
      });
      if (!ok) await once(world.channel, 'drain');
    };
    const started = Date.now();
    const every = Math.max(1, Math.floor(hostile.length / VALID));
    let duplicates = 0;
    for (let i = 0; i < hostile.length; i++) {
      await publish(hostile[i], `hostile-${i}`);
      const n = i / every;
      if (Number.isInteger(n) && n < valid.length) {
        await publish(valid[n], `valid-${valid[n].jobId}`);
        if (n % 4 === 0) {
          await publish(valid[n], `valid-${valid[n].jobId}-replay`);
          duplicates++;
        }
      }
    }
    const published = Date.now();
    const dead = () => world.deadLetters.filter((d) => String(d.properties.headers?.['X-Request-Id']).startsWith('hostile-')).length;
    await until(() => dead() === hostile.length, 30 * 60_000, `${hostile.length} dead letters`);
    const allDead = Date.now();
    await until(async () => (await Promise.all(valid.map((v) => jobDoc(world, v.jobId)))).every((d) => d?.status === 'completed'), 10 * 60_000, 'the valid jobs');
    const allDone = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // the last counter increments follow the settle
    const after = await metrics();

    const expected = countByReason(hostile);
    const logged = new Map([...output.matchAll(/message rejected \((\w+)\), request (hostile-\d+)/g)].map((m) => [m[2], m[1]]));
    const loggedCounts: Record<string, number> = {};
    for (const reason of logged.values()) loggedCounts[reason] = (loggedCounts[reason] ?? 0) + 1;
    out('');
    out('| reason | expected | counter moved | logged | dead-lettered |');
    out('|---|---|---|---|---|');
    const deadByReason: Record<string, number> = {};
    hostile.forEach((m, i) => {
      if (logged.get(`hostile-${i}`) === m.expected) deadByReason[m.expected] = (deadByReason[m.expected] ?? 0) + 1;
    });
    for (const reason of Object.keys({ ...expected, ...after }).sort()) {
      out(`| ${reason} | ${expected[reason] ?? 0} | ${(after[reason] ?? 0) - (before[reason] ?? 0)} | ${loggedCounts[reason] ?? 0} | ${deadByReason[reason] ?? 0} |`);
    }
    const wrong = hostile.flatMap((m, i) => (logged.get(`hostile-${i}`) === m.expected ? [] : [`${m.kind}: expected ${m.expected}, logged ${logged.get(`hostile-${i}`) ?? 'nothing'}`]));
    out(`\nmessages whose reason differs from the expected one: ${wrong.length}`);
    for (const w of wrong.slice(0, 20)) out(`  ${w}`);
    const kinds = new Set(hostile.map((m) => m.kind.replace(/:[^:]*$/, ''))).size;
    out(`distinct kinds (up to the last colon): ${kinds}`);

    const completed = world.events.filter((e) => String(e.properties.headers?.['ce-id']).startsWith('fetcher.job.completed.'));
    const failed = world.events.filter((e) => String(e.properties.headers?.['ce-id']).startsWith('fetcher.job.failed.'));
    const validDead = world.deadLetters.filter((d) => String(d.properties.headers?.['X-Request-Id']).startsWith('valid-')).length;
    out(`valid jobs: ${valid.length} (${duplicates} delivered twice); completed events ${completed.length} for ${new Set(completed.map((e) => String(e.properties.headers?.['ce-subject']))).size} jobs; failed events ${failed.length}; valid messages dead-lettered ${validDead}`);
    const total = hostile.length + valid.length + duplicates;
    out(`publish: ${total} messages in ${published - started} ms`);
    out(`last dead letter after ${allDead - started} ms: ${Math.round((hostile.length * 1000) / (allDead - started))} hostile messages/s`);
    out(`all settled after ${Math.max(allDead, allDone) - started} ms: ${Math.round((total * 1000) / (Math.max(allDead, allDone) - started))} messages/s overall`);
    out(`worker alive: ${worker.exitCode === null}, /health ${(await fetch(`${base}/health`)).status}`);
  } finally {
    worker.kill('SIGTERM');
    const [code] = (await once(worker, 'exit')) as [number | null];
    const queue = await world.channel.checkQueue(world.workQueue);
    out(`worker exit code ${code}; work queue after stop: ${queue.messageCount} messages`);
    await world.close();
    await pg.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pg.end();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
