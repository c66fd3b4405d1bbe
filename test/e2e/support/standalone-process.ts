import { type ChildProcess, spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { reapOnExit } from './child-reaper';

export const ROOT = join(__dirname, '..', '..', '..');
export const STANDALONE_MAIN = join(ROOT, 'apps', 'standalone', 'dist', 'main.js');
export const FETCHER_BIN = join(ROOT, 'apps', 'cli', 'bin', 'fetcher.js');

export interface StandaloneProcess {
  readonly baseUrl: string;
  readonly child: ChildProcess;
  output(): string;
  /** SIGTERM, then SIGKILL after 15 s. */
  stop(): Promise<void>;
  /** SIGKILL at once: nothing gets a chance to flush. */
  kill(): Promise<void>;
}

/** Runs the built standalone service on `port` with `dataDir`, and resolves once `/readyz` answers 200. */
export async function startStandaloneProcess(port: number, dataDir: string, env: Record<string, string> = {}): Promise<StandaloneProcess> {
  const child = reapOnExit(spawn(process.execPath, [STANDALONE_MAIN], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', FETCHER_DATA_DIR: dataDir, SERVER_ADDRESS: `127.0.0.1:${port}`, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  }));
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit');
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ready = await Promise.race([fetch(`${baseUrl}/readyz`).then((r) => r.status === 200, () => false), exited.then(() => 'exited' as const)]);
    if (ready === true) break;
    if (ready === 'exited') throw new Error(`standalone exited before it was ready:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`standalone was not ready within 60 s:\n${output}`);
    }
    // Readiness is only visible over HTTP, so poll it (a retry interval, not a synchronising sleep).
    await delay(50);
  }
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  return {
    baseUrl,
    child,
    output: () => output,
    stop: async () => {
      if (gone()) return;
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(timer);
    },
    kill: async () => {
      if (gone()) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Runs the built `fetcher` CLI with only PATH and `env`. */
export function runFetcher(args: readonly string[], env: Record<string, string>): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [FETCHER_BIN, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
}

/**
 * `runFetcher` without blocking this process: needed when the CLI talks to a server running inside
 * the test process (s3rver), which a synchronous spawn would keep from answering.
 */
export async function runFetcherAsync(args: readonly string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [FETCHER_BIN, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const [status] = (await once(child, 'close')) as [number | null];
  return { status, stdout, stderr };
}

/** Polls `read` until it resolves to a value, for at most `timeoutMs`. */
export async function eventually<T>(read: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await delay(50);
  }
}
