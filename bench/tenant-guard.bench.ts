/**
 * What the multi-tenant tenant guard adds to a request once its key set is cached: the Manager's own
 * TenantTokenVerifier (claim-shape checks, then jose's signature, algorithm, exp/nbf, iss/aud checks)
 * timed call by call, for RS256 and ES256 tokens, against a local JWKS server that is downloaded once.
 * Then the same on HTTP: a Fastify server with an open route and a route that runs the verifier, each
 * called sequentially over keep-alive, so the difference of their latencies is the guard's share.
 * Wall-clock latency depends on how busy the machine is (jose runs the signature check on libuv's
 * thread pool, so every verify waits for a pool thread to be scheduled); the CPU time per call
 * (process.cpuUsage, all threads) is printed too, as the figure that does not depend on other load.
 *
 * Build first: `npm run build -w @fetcher/engine -w @fetcher/platform -w @fetcher/contracts -w @fetcher/connectors -w @fetcher/manager`,
 * then `npx tsc -p bench/tsconfig.json`.
 *
 * Clients reuse a token for its lifetime, and the verifier remembers a verified token for a minute,
 * so most requests take the remembered path; tokens used once each show the full check.
 *
 *   node bench/dist/tenant-guard.bench.js [--calls=20000] [--requests=5000] [--tenants=100] [--fresh=3000]
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { TenantTokenVerifier } from '@fetcher/manager';
import fastify from 'fastify';
import { exportJWK, generateKeyPair, type KeyLike, SignJWT } from 'jose';
import { median, percentile } from './support/percentile';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const CALLS = Number(args.get('calls') ?? 20_000);
const REQUESTS = Number(args.get('requests') ?? 5_000);
const TENANTS = Number(args.get('tenants') ?? 100);
/** Tokens used once each, so every call runs the full signature check. */
const FRESH = Number(args.get('fresh') ?? 3_000);
const ISSUER = 'https://auth.bench';
const AUDIENCE = 'fetcher';

interface Signer {
  readonly alg: 'RS256' | 'ES256';
  readonly kid: string;
  readonly key: KeyLike;
}

async function signer(alg: 'RS256' | 'ES256'): Promise<{ signer: Signer; jwk: Record<string, unknown> }> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  const kid = `bench-${alg}`;
  return { signer: { alg, kid, key: privateKey }, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

async function tokens(s: Signer, count: number): Promise<string[]> {
  const now = Math.floor(Date.now() / 1000);
  return Promise.all(Array.from({ length: count }, (_, i) =>
    new SignJWT({ tenantId: `tenant-${i}` }).setProtectedHeader({ alg: s.alg, kid: s.kid, typ: 'JWT' })
      .setIssuer(ISSUER).setAudience(AUDIENCE).setIssuedAt(now).setExpirationTime(now + 3600).sign(s.key)));
}

function summary(label: string, micros: number[]): string {
  const mean = micros.reduce((a, b) => a + b, 0) / micros.length;
  return `${label.padEnd(34)} mean ${mean.toFixed(1).padStart(7)} µs   p50 ${median(micros).toFixed(1).padStart(7)} µs   p99 ${percentile(micros, 99).toFixed(1).padStart(7)} µs`;
}

/** CPU time of the whole process (every thread) per call, in µs. */
async function cpuPerCall(calls: number, run: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

async function timeCalls(verifier: TenantTokenVerifier, pool: readonly string[], calls: number): Promise<{ micros: number[]; cpu: number }> {
  const micros: number[] = [];
  const cpu = await cpuPerCall(calls, async () => {
    for (let i = 0; i < calls; i++) {
      const header = `Bearer ${pool[i % pool.length]}`;
      const start = performance.now();
      await verifier.verify(header);
      micros.push((performance.now() - start) * 1000);
    }
  });
  return { micros, cpu };
}

async function main(): Promise<void> {
  const rs = await signer('RS256');
  const es = await signer('ES256');
  let fetches = 0;
  const jwksServer = createServer((_req, res) => {
    fetches += 1;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [rs.jwk, es.jwk] }));
  }).listen(0, '127.0.0.1');
  await once(jwksServer, 'listening');
  const jwksUrl = `http://127.0.0.1:${(jwksServer.address() as { port: number }).port}/jwks.json`;
  const verifier = new TenantTokenVerifier({ jwksUrl, algorithms: ['RS256', 'ES256'], issuer: ISSUER, audience: [AUDIENCE] });
  const pools = { RS256: await tokens(rs.signer, TENANTS), ES256: await tokens(es.signer, TENANTS) };
  const fresh = { RS256: await tokens(rs.signer, FRESH), ES256: await tokens(es.signer, FRESH) };

  console.log(`tenant guard, cached JWKS: ${CALLS} calls per algorithm, ${TENANTS} tenants' tokens, Node ${process.version}`);
  for (const alg of ['RS256', 'ES256'] as const) {
    await timeCalls(verifier, pools[alg], Math.min(2_000, CALLS)); // warm-up: JIT and the one JWKS download
    const first = await timeCalls(verifier, fresh[alg], FRESH);
    console.log(`${summary(`verify, first use (${alg})`, first.micros)}   CPU ${first.cpu.toFixed(1)} µs/call`);
    const again = await timeCalls(verifier, pools[alg], CALLS);
    console.log(`${summary(`verify, token seen (${alg})`, again.micros)}   CPU ${again.cpu.toFixed(1)} µs/call`);
  }
  console.log(`JWKS downloads: ${fetches} (expected 1: every later key came from the cache)`);

  // The same on HTTP: the guard's share is the difference between the two routes.
  const app = fastify();
  app.get('/open', async () => ({ tenantId: 'default' }));
  app.get('/guarded', async (request) => ({ tenantId: await verifier.verify(request.headers.authorization) }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const request = async (path: string, token: string): Promise<number> => {
    const start = performance.now();
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
    return (performance.now() - start) * 1000;
  };
  for (const alg of ['RS256', 'ES256'] as const) {
    const open: number[] = [];
    const guarded: number[] = [];
    for (let i = 0; i < 500; i++) await request(i % 2 ? '/open' : '/guarded', pools[alg][i % TENANTS]); // warm-up
    // Interleaved, so load from other processes on the machine hits both routes alike.
    for (let i = 0; i < REQUESTS; i++) {
      open.push(await request('/open', pools[alg][i % TENANTS]));
      guarded.push(await request('/guarded', pools[alg][i % TENANTS]));
    }
    // CPU per request, client and server together (same process), route by route.
    const openCpu = await cpuPerCall(REQUESTS, async () => { for (let i = 0; i < REQUESTS; i++) await request('/open', pools[alg][i % TENANTS]); });
    const guardedCpu = await cpuPerCall(REQUESTS, async () => { for (let i = 0; i < REQUESTS; i++) await request('/guarded', pools[alg][i % TENANTS]); });
    console.log(`${summary(`HTTP open route (${alg} run)`, open)}   CPU ${openCpu.toFixed(1)} µs/request`);
    console.log(`${summary(`HTTP guarded route (${alg})`, guarded)}   CPU ${guardedCpu.toFixed(1)} µs/request`);
    console.log(`${`added by the guard (${alg})`.padEnd(34)} median ${(median(guarded) - median(open)).toFixed(1)} µs wall, ${(guardedCpu - openCpu).toFixed(1)} µs CPU`);
  }
  await app.close();
  jwksServer.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
