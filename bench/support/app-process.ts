/**
 * The built apps as child processes of a bench: the Worker under `/usr/bin/time -v` (for the kernel's
 * peak RSS), started with the V8 flags of its own start script so the bench measures what production
 * runs; the Manager as plain `node`. Each resolves once its health route answers 200.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

// bench/dist/support -> the repository root.
const ROOT = join(__dirname, '..', '..', '..');

/** Processes still running; killed if the bench fails, so none outlives it. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** The node flags in `apps/worker/package.json`'s start script (`node <flags> dist/main.js`). */
export function workerStartFlags(): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'apps', 'worker', 'package.json'), 'utf8')) as { scripts: { start: string } };
  const words = manifest.scripts.start.split(/\s+/);
  if (words[0] !== 'node' || words.at(-1) !== 'dist/main.js') throw new Error(`unexpected worker start script: ${manifest.scripts.start}`);
  return words.slice(1, -1);
}

export interface RunningApp {
  readonly baseUrl: string;
  /** The app's own process id (for the Worker, node under /usr/bin/time), for sampling /proc. */
  readonly pid: number;
  /** Resolves when the process has exited; `peakRssKb` only for the Worker. */
  readonly exited: Promise<{ peakRssKb: number }>;
  /** SIGTERM to the app itself (for the Worker not to /usr/bin/time, which would die without its report). */
  stop(): void;
}

async function waitHealthy(child: ChildProcess, url: string, stderr: () => string): Promise<void> {
  for (const deadline = Date.now() + 60_000; ; ) {
    const ok = await fetch(url).then((r) => r.status === 200, () => false);
    if (ok) return;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${url} did not come up:\n${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function launch(command: string, args: readonly string[], env: Record<string, string>): { child: ChildProcess; stderr: () => string } {
  const child = spawn(command, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, stderr: () => stderr };
}

/** `extraNodeArgs`: e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, after the start script's own flags. */
export async function startWorker(env: Record<string, string>, extraNodeArgs: readonly string[] = []): Promise<RunningApp> {
  const port = await freePort();
  const main = join(ROOT, 'apps', 'worker', 'dist', 'main.js');
  const { child, stderr } = launch('/usr/bin/time', ['-v', process.execPath, ...workerStartFlags(), ...extraNodeArgs, main], { ...env, HEALTH_PORT: String(port) });
  const exited = once(child, 'exit').then(() => {
    const peak = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr());
    return { peakRssKb: peak ? Number(peak[1]) : NaN };
  });
  await waitHealthy(child, `http://127.0.0.1:${port}/health`, stderr);
  const children = (): number[] => readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  const stop = (): void => {
    for (const pid of children()) process.kill(pid, 'SIGTERM');
  };
  return { baseUrl: `http://127.0.0.1:${port}`, pid: children()[0] ?? NaN, exited, stop };
}

export async function startManager(env: Record<string, string>): Promise<RunningApp> {
  const port = await freePort();
  const { child, stderr } = launch(process.execPath, [join(ROOT, 'apps', 'manager', 'dist', 'main.js')], { ...env, SERVER_ADDRESS: `127.0.0.1:${port}` });
  const exited = once(child, 'exit').then(() => ({ peakRssKb: NaN }));
  await waitHealthy(child, `http://127.0.0.1:${port}/readyz`, stderr);
  return { baseUrl: `http://127.0.0.1:${port}`, pid: child.pid ?? NaN, exited, stop: () => child.kill('SIGTERM') };
}
