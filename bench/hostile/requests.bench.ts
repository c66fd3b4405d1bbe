/**
 * Generated hostile HTTP requests (apps/manager/src/testing/hostile-requests.ts) against the built
 * Manager over real HTTP, per route: how many were sent, the statuses, how many answers broke a rule
 * (a 5xx, internals in the body, the planted secret in the body or a header) with the first few,
 * requests per second and p50/p99 latency; at the end, whether the Manager's own log holds the secret.
 * The Manager runs as a child process against the machine's PostgreSQL, Redis and RabbitMQ and the
 * MongoDB test server in this process.
 *
 * Build first: `npm run build`, then `npx tsc -p bench/hostile/tsconfig.json`. From the repository root:
 *
 *   node bench/hostile/dist/bench/hostile/requests.bench.js [--per-route=100000] [--concurrency=8] [--seed=20261206] [--routes=<substring>]
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startMongoTestServer } from '@fetcher/mongo-test-server';
import fc from 'fast-check';
import { Client } from 'pg';
import { answerProblems, HOSTILE_ROUTES, type HostileRequest, type RequestContext } from '../../apps/manager/src/testing/hostile-requests';
import { managerEnv } from '../../test/e2e/support/manager-env';
import { until } from '../../test/e2e/support/worker-harness';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const PER_ROUTE = Number(args.get('per-route') ?? 100_000);
const CONCURRENCY = Number(args.get('concurrency') ?? 8);
const SEED = Number(args.get('seed') ?? 20_261_206);
const ONLY = args.get('routes');
const CHUNK = 500; // drawn at a time: some bodies are 4-5 MiB
const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' };
const out = (line: string): boolean => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const schema = `hostile_http_${randomUUID().slice(0, 8)}`;
  const pg = new Client(PG);
  await pg.connect();
  await pg.query(`CREATE SCHEMA ${schema}`);
  await pg.query(`CREATE TABLE ${schema}.orders (id int PRIMARY KEY, amount numeric)`);
  const mongo = await startMongoTestServer();
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const manager = spawn(process.execPath, [join(process.cwd(), 'apps', 'manager', 'dist', 'main.js')], {
    env: { PATH: process.env.PATH ?? '', ...managerEnv(mongo.uri, port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  manager.stdout.on('data', (c: Buffer) => (log += c.toString()));
  manager.stderr.on('data', (c: Buffer) => (log += c.toString()));
  const base = `http://127.0.0.1:${port}`;
  try {
    await until(() => fetch(`${base}/readyz`).then((r) => r.status === 200, () => false), 60_000, 'the Manager to be ready');
    const json = { 'content-type': 'application/json', 'x-product-name': 'hostile' };
    const created = await fetch(`${base}/v1/management/connections`, {
      method: 'POST', headers: json,
      body: JSON.stringify({ configName: `pg-${schema}`, type: 'POSTGRESQL', host: PG.host, port: PG.port, databaseName: PG.database, userName: PG.user, password: 'trust', schema }),
    });
    const connection = (await created.json()) as { id: string; configName: string };
    const job = await fetch(`${base}/v1/fetcher`, { method: 'POST', headers: json, body: JSON.stringify({ dataRequest: { mappedFields: { [connection.configName]: { [`${schema}.orders`]: ['id'] } } }, metadata: { source: 'hostile' } }) });
    const ctx: RequestContext = { connectionId: connection.id, configName: connection.configName, jobId: ((await job.json()) as { jobId: string }).jobId, secret: `hostile-secret-${randomUUID()}` };
    out(`Manager up; ${PER_ROUTE} requests per route, ${CONCURRENCY} at a time, seed ${SEED}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    out('');
    out('| route | requests | statuses | broken answers | req/s | p50 ms | p99 ms |');
    out('|---|---|---|---|---|---|---|');

    let total = 0;
    let broken = 0;
    for (const route of HOSTILE_ROUTES.filter((r) => !ONLY || r.name.includes(ONLY))) {
      const statuses = new Map<number, number>();
      const latencies: number[] = [];
      const examples: string[] = [];
      let bad = 0;
      const started = Date.now();
      for (let done = 0; done < PER_ROUTE; done += CHUNK) {
        const batch = fc.sample(route.request(ctx), { numRuns: Math.min(CHUNK, PER_ROUTE - done), seed: SEED + done });
        let next = 0;
        await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
          while (next < batch.length) {
            const request = batch[next++];
            const t0 = performance.now();
            const answer = await send(base, request);
            latencies.push(performance.now() - t0);
            statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
            const problems = answer.status === 0 ? ['no answer'] : answerProblems(request, answer, ctx.secret);
            if (problems.length > 0) {
              bad++;
              if (examples.length < 3) examples.push(`${problems.join(', ')}: ${request.method} ${request.url.slice(0, 120)} -> ${answer.status} ${answer.text.slice(0, 200)}`);
            }
          }
        }));
      }
      const seconds = (Date.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(1);
      const histogram = [...statuses.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`).join(', ');
      out(`| ${route.name} | ${latencies.length} | ${histogram} | ${bad} | ${Math.round(latencies.length / seconds)} | ${pct(50)} | ${pct(99)} |`);
      for (const e of examples) out(`|   ${e.replace(/\|/g, '\\|')} | | | | | | |`);
      total += latencies.length;
      broken += bad;
    }
    out('');
    out(`total ${total} requests, ${broken} broken answers; the secret in the Manager's log: ${log.includes(ctx.secret) ? 'YES' : 'no'}; Manager alive: ${manager.exitCode === null}`);
    out(`load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    manager.kill('SIGTERM');
    await once(manager, 'exit');
    await mongo.close();
    await pg.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pg.end();
  }
}

/** One request over HTTP; a refused connection or a reset is status 0, a broken answer. */
async function send(base: string, r: HostileRequest): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  try {
    const res = await fetch(`${base}${r.url}`, { method: r.method, headers: r.headers, ...(r.body === undefined ? {} : { body: r.body }) });
    return { status: res.status, headers: Object.fromEntries(res.headers.entries()), text: await res.text() };
  } catch (error) {
    return { status: 0, headers: {}, text: error instanceof Error ? error.message : String(error) };
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
