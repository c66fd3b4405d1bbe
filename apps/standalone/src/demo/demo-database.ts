import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { restrictTree } from '../persistence/private-tree';
import { DEMO_SEED_SQL } from './demo-seed';

/** Where the demo database answers: the PostgreSQL wire protocol on a loopback port. */
export interface DemoDatabaseAddress {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly user: string;
}

const STOP_GRACE_MS = 3_000;

type WorkerMessage = { kind: 'listening'; port: number } | { kind: 'initialized' } | { kind: 'failed'; message: string } | { kind: 'stopped' };

/**
 * The worker's program, plain CommonJS. PGlite loads its WebAssembly and file-system bundle with
 * dynamic `import()`, which must run in a real Node context (not, for instance, a test runner's
 * sandbox), and its queries are CPU work that would otherwise stall the API's event loop.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite } = require(workerData.pglite);
const { PGLiteSocketServer } = require(workerData.socket);
let db;
let server;
async function start() {
  db = new PGlite(workerData.dataDir);
  await db.waitReady;
  if (workerData.mode === 'init') {
    await db.exec(workerData.seed);
    await db.close();
    db = undefined;
    parentPort.postMessage({ kind: 'initialized' });
    parentPort.close(); // nothing left to do: the thread ends, and its memory goes with it
    return;
  }
  server = new PGLiteSocketServer({ db, host: workerData.host, port: workerData.port, maxConnections: 16 });
  await server.start();
  // After listening, the server reports the port the system chose for port 0.
  parentPort.postMessage({ kind: 'listening', port: Number(server.getServerConn().split(':').pop()) });
}
parentPort.on('message', async (message) => {
  if (message !== 'stop') return;
  try { if (server) await server.stop(); if (db) await db.close(); } finally { parentPort.postMessage({ kind: 'stopped' }); parentPort.close(); }
});
start().catch((error) => parentPort.postMessage({ kind: 'failed', message: error && error.message ? String(error.message) : 'unknown error' }));
`;

/**
 * An embedded PostgreSQL (PGlite, compiled to WebAssembly) with the demo shop, served over TCP so that
 * the real PostgreSQL connector reads it exactly as it reads a server. It runs in a worker thread and
 * keeps its files in `dataDir`. The first start creates and seeds them in a thread of its own that
 * then ends: initdb grows the WebAssembly memory to several hundred MiB, which only ending the
 * thread gives back; opening the existing files afterwards takes well under a second and a fraction
 * of the memory. The files appear under their final name only once seeded.
 *
 * PGlite is a single session shared by every socket, so a client holding a transaction open blocks
 * the others; the connector reads one table at a time, which keeps that from mattering here.
 */
export class DemoDatabase {
  #worker?: Worker;
  #address?: DemoDatabaseAddress;
  #dataDir?: string;

  get address(): DemoDatabaseAddress {
    if (!this.#address) throw new Error('the demo database is not started');
    return this.#address;
  }

  /** Creates and seeds the database on the first start, then serves it on a loopback port. */
  async start(options: { dataDir: string; host?: string; port?: number }): Promise<DemoDatabaseAddress> {
    const host = options.host ?? '127.0.0.1';
    if (!existsSync(join(options.dataDir, 'PG_VERSION'))) {
      const building = `${options.dataDir}.tmp-${randomBytes(4).toString('hex')}`;
      try {
        const init = this.#spawn({ mode: 'init', dataDir: building, host, port: 0 });
        const ended = new Promise<void>((resolve) => init.once('exit', () => resolve()));
        await this.#answer(init, 'initialized');
        await ended;
        await restrictTree(building);
        await rename(building, options.dataDir);
      } finally {
        await rm(building, { recursive: true, force: true });
      }
    }
    const worker = this.#spawn({ mode: 'serve', dataDir: options.dataDir, host, port: options.port ?? 0 });
    this.#worker = worker;
    const answer = await this.#answer(worker, 'listening').catch(async (error: unknown) => {
      this.#worker = undefined;
      await worker.terminate();
      throw error;
    });
    // PGlite makes its files 0666 and its directories 0755 (a chmod of its own, whatever the umask):
    // narrowed once it has opened them, and again when it stops, after writing what it wrote meanwhile.
    this.#dataDir = options.dataDir;
    await restrictTree(options.dataDir);
    const port = answer.kind === 'listening' ? answer.port : 0;
    this.#address = Object.freeze({ host, port, database: 'postgres', user: 'postgres' });
    return this.#address;
  }

  #spawn(data: { mode: 'init' | 'serve'; dataDir: string; host: string; port: number }): Worker {
    return new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { ...data, pglite: require.resolve('@electric-sql/pglite'), socket: require.resolve('@electric-sql/pglite-socket'), seed: DEMO_SEED_SQL },
    });
  }

  /** The worker's first message, when it is `expected`; anything else (or an exit) rejects. */
  #answer(worker: Worker, expected: 'initialized' | 'listening'): Promise<WorkerMessage> {
    return new Promise<WorkerMessage>((resolve, reject) => {
      const onExit = () => reject(new Error('the demo database stopped while starting'));
      worker.once('error', reject);
      worker.once('exit', onExit);
      worker.once('message', (message: WorkerMessage) => {
        worker.off('error', reject);
        worker.off('exit', onExit);
        if (message.kind === expected) resolve(message);
        else reject(new Error(`the demo database failed to start: ${message.kind === 'failed' ? message.message : message.kind}`));
      });
    });
  }

  /** Stops listening, closes PGlite and ends the worker; safe to call twice. */
  async stop(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#address = undefined;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('stop');
    // The socket server waits for its clients to hang up; a pooled client left open must not hold
    // the shutdown, and the data lives in memory anyway, so after a moment the thread is ended.
    const timer = setTimeout(() => void worker.terminate(), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
    if (this.#dataDir) await restrictTree(this.#dataDir).catch(() => undefined);
  }
}
