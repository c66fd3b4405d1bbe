import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { join } from 'node:path';

// A real process and a real SIGTERM: a small Fastify app built from the compiled platform library
// (npm run build), with one slow route that finishes when the test writes a line to its stdin.
const ROOT = join(__dirname, '..', '..');
const FIXTURE = `
require('reflect-metadata');
const { Controller, Get, Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { FastifyAdapter } = require('@nestjs/platform-fastify');
const platform = require('./libs/platform/dist/index.js');

let release;
const released = new Promise((resolve) => { release = resolve; });
process.stdin.on('data', () => release());

class SlowController {
  async slow() {
    process.stdout.write('slow request started\\n');
    await released;
    return { done: true };
  }
}
Controller()(SlowController);
Get('slow')(SlowController.prototype, 'slow', Object.getOwnPropertyDescriptor(SlowController.prototype, 'slow'));

class AppModule {}
Module({
  imports: [platform.PlatformModule.forRoot({
    service: 'manager', version: '0.0.1', deploymentMode: 'local', drainDelaySec: 2,
    probes: [platform.staticProbe('mongodb', { status: 'up' })],
  })],
  controllers: [SlowController],
})(AppModule);

(async () => {
  const app = await NestFactory.create(AppModule, new FastifyAdapter(), { logger: false });
  await app.listen(0, '127.0.0.1');
  platform.runGracefully(app, { drainDelaySec: 2, logger: { log: (m) => process.stdout.write(m + '\\n'), error: (m) => process.stdout.write(m + '\\n') } });
  process.stdout.write('listening on ' + app.getHttpServer().address().port + '\\n');
})().catch((error) => { process.stderr.write(String(error && error.message) + '\\n'); process.exit(1); });
`;

/** Resolves with the first stdout line matching `pattern`. */
function waitForLine(child: ChildProcess, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const match = pattern.exec(buffered);
      if (match) {
        child.stdout?.off('data', onData);
        resolve(match);
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', () => reject(new Error(`process exited before printing ${pattern}`)));
  });
}

/** Polls, within a bound, until nothing accepts connections on the port any more. */
async function waitUntilRefused(port: number, boundMs = 30_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (Date.now() < deadline) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => { socket.destroy(); resolve(false); });
      socket.once('error', () => resolve(true));
    });
    if (refused) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`port ${port} still accepts connections after ${boundMs} ms`);
}

describe('runGracefully in a real process', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  it('on SIGTERM: /readyz 503 during the delay, the slow request completes, then exit 0', async () => {
    child = spawn(process.execPath, ['-e', FIXTURE], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    const port = Number((await waitForLine(child, /listening on (\d+)/))[1]);
    const url = `http://127.0.0.1:${port}`;
    expect((await fetch(`${url}/readyz`)).status).toBe(200);

    const started = waitForLine(child, /slow request started/);
    const slow = fetch(`${url}/slow`).then(async (res) => ({ status: res.status, body: await res.json() }));
    await started;

    child.kill('SIGTERM');
    await waitForLine(child, /SIGTERM: draining/);
    const readyz = await fetch(`${url}/readyz`);
    expect(readyz.status).toBe(503);
    expect(await readyz.json()).toMatchObject({ status: 'unhealthy', checks: { draining: { status: 'down', reason: 'graceful drain in progress' } } });

    await waitUntilRefused(port); // the delay is over and intake has stopped, with the request still in flight
    child.stdin?.write('release\n');
    expect(await slow).toEqual({ status: 200, body: { done: true } });
    expect(await exited).toEqual([0, null]);
  });
});
