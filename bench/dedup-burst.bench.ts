/**
 * Duplicate detection under a burst: spawns the built standalone service (the Manager and its running
 * Worker in one process) on a fresh data directory, then, per run, sends N identical `POST /v1/fetcher`
 * at once and prints the status histogram, how many jobs the data directory holds for that request,
 * and how many connections the datasource received.
 *
 * The datasource is a real PostgreSQL (a small table the bench creates in `--database`, dropped at the
 * end), registered as a stored connection that points at a counting TCP proxy inside the bench, so
 * every dial (the Manager's connectivity check and the Worker's extraction) is counted. Each run uses
 * its own `metadata.run`, so runs never dedupe against each other. Expected: one 202, the rest 200,
 * one job, and the dials of one job.
 *
 * Build first: `npm run build` (or the engine, platform, connectors and standalone workspaces), then
 * `npx tsc -p bench/tsconfig.json`.
 *
 *   node bench/dist/dedup-burst.bench.js [--requests=200] [--runs=5] [--host=127.0.0.1] [--port=5432] [--user=postgres] [--database=test]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from './support/app-process';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const REQUESTS = Number(args.get('requests') ?? 200);
const RUNS = Number(args.get('runs') ?? 5);
const PG = { host: args.get('host') ?? '127.0.0.1', port: Number(args.get('port') ?? 5432), user: args.get('user') ?? 'postgres', database: args.get('database') ?? 'test' };
const ROOT = join(__dirname, '..', '..');
const STANDALONE_MAIN = join(ROOT, 'apps', 'standalone', 'dist', 'main.js');

/** Forwards loopback TCP to PostgreSQL and counts the connections. */
async function countingProxy(): Promise<{ server: Server; port: number; dials: () => number }> {
  let dials = 0;
  const server = createServer((client) => {
    dials += 1;
    const upstream = connect(PG.port, PG.host);
    for (const socket of [client, upstream]) socket.on('error', () => socket.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as { port: number }).port, dials: () => dials };
}

async function until<T>(read: () => Promise<T | undefined>, what: string, child: ChildProcess): Promise<T> {
  for (const deadline = Date.now() + 60_000; ; ) {
    if (child.exitCode !== null) throw new Error('the service exited');
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function main(): Promise<void> {
  const schema = `dedup_bench_${randomUUID().replace(/-/g, '').slice(0, 8)}`;
  const admin = new Client(PG);
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.items (id int); INSERT INTO ${schema}.items SELECT generate_series(1, 30)`);
  const proxy = await countingProxy();
  const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-dedup-bench-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const service = spawn(process.execPath, [STANDALONE_MAIN], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', FETCHER_DATA_DIR: dataDir, SERVER_ADDRESS: `127.0.0.1:${port}`, LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    await until(async () => ((await fetch(`${base}/readyz`).then((r) => r.status, () => 0)) === 200 ? true : undefined), 'readiness', service);
    const created = await fetch(`${base}/v1/management/connections`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Product-Name': 'bench' },
      body: JSON.stringify({ configName: 'bench-pg', type: 'POSTGRESQL', host: '127.0.0.1', port: proxy.port, databaseName: PG.database, userName: PG.user, password: 'unused' }),
    });
    if (created.status !== 201) throw new Error(`creating the connection answered ${created.status}`);

    console.log(`${REQUESTS} identical concurrent POST /v1/fetcher per run, standalone with its Worker, PostgreSQL through a counting proxy`);
    console.log('| Run | Statuses | Jobs stored | Dials | Job status |');
    console.log('|---|---|---|---|---|');
    for (let run = 1; run <= RUNS; run++) {
      const marker = randomUUID();
      const body = JSON.stringify({ dataRequest: { mappedFields: { 'bench-pg': { [`${schema}.items`]: ['id'] } } }, metadata: { source: 'bench', run: marker } });
      const dialsBefore = proxy.dials();
      const answers = await Promise.all(
        Array.from({ length: REQUESTS }, async () => {
          const res = await fetch(`${base}/v1/fetcher`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
          return { status: res.status, body: (await res.json()) as { jobId?: string } };
        }),
      );
      const histogram: Record<number, number> = {};
      for (const a of answers) histogram[a.status] = (histogram[a.status] ?? 0) + 1;
      const ids = [...new Set(answers.map((a) => a.body.jobId).filter((id): id is string => id !== undefined))];
      // Wait for every job to end, so the dial count includes the Worker's and runs do not overlap.
      const statuses = await Promise.all(
        ids.map((id) =>
          until(
            async () => {
              const job = (await (await fetch(`${base}/v1/fetcher/${id}`)).json()) as { status: string };
              return job.status === 'completed' || job.status === 'failed' ? job.status : undefined;
            },
            `job ${id} ending`,
            service,
          ),
        ),
      );
      const jobsDir = join(dataDir, 'jobs');
      const stored = readdirSync(jobsDir).filter((file) => file.endsWith('.json') && readFileSync(join(jobsDir, file), 'utf8').includes(marker)).length;
      console.log(`| ${run} | ${JSON.stringify(histogram)} | ${stored} | ${proxy.dials() - dialsBefore} | ${statuses.join(', ')} |`);
    }
  } finally {
    service.kill('SIGTERM');
    if (service.exitCode === null) await once(service, 'exit');
    proxy.server.close();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
