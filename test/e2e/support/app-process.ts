import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { reapOnExit } from './child-reaper';

const ROOT = join(__dirname, '..', '..', '..');

export interface AppProcess {
  readonly baseUrl: string;
  readonly child: ChildProcess;
  output(): string;
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A free loopback port: bind port 0, read it, release it. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Runs a built app (`node apps/<name>/dist/main.js`) with only the given environment plus PATH. */
export function runApp(name: 'manager' | 'worker', env: Record<string, string>): ChildProcess {
  return reapOnExit(spawn(process.execPath, [join(ROOT, 'apps', name, 'dist', 'main.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  }));
}

/** Starts a built app and resolves once `GET <healthPath>` answers 200. */
export async function startApp(name: 'manager' | 'worker', port: number, env: Record<string, string>, healthPath = '/health'): Promise<AppProcess> {
  const child = runApp(name, env);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit');
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000; // generous: a loaded 2-core machine boots Nest slowly
  let last = 'no answer';
  for (;;) {
    const ready = await Promise.race([
      fetch(baseUrl + healthPath).then(
        async (r) => {
          last = `${r.status} ${await r.text()}`;
          return r.status === 200;
        },
        (error: unknown) => {
          last = error instanceof Error ? error.message : 'no answer';
          return false;
        },
      ),
      exited.then(() => 'exited' as const),
    ]);
    if (ready === true) break;
    if (ready === 'exited') throw new Error(`${name} exited before it was ready:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} was not ready within 60 s (last ${healthPath}: ${last}):\n${output}`);
    }
    // The app reports readiness only through HTTP, so poll it (a retry interval, not a synchronising sleep).
    await delay(50);
  }
  return {
    baseUrl,
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode };
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.kill('SIGTERM');
      const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
      clearTimeout(timer);
      return { code, signal };
    },
  };
}
