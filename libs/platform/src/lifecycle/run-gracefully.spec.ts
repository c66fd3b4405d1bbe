import { type INestApplication } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { Lifecycle } from './lifecycle';
import { runGracefully } from './run-gracefully';

function setup(closeFails = false) {
  const lifecycle = new Lifecycle();
  const steps: string[] = [];
  lifecycle.register({ name: 'consumer', start: async () => undefined, stop: async () => { steps.push('stop consumer'); } });
  const app = {
    getHttpServer: () => undefined,
    close: async () => { steps.push('app.close'); if (closeFails) throw new Error('mongo close failed'); },
  } as unknown as INestApplication;
  const proc = Object.assign(new EventEmitter(), { exit: jest.fn() });
  const exited = new Promise<number>((resolve) => proc.exit.mockImplementation((code: number) => resolve(code)));
  const logs: string[] = [];
  const logger = { log: (m: string) => logs.push(m), error: (m: string) => logs.push(`error: ${m}`) };
  return { lifecycle, app, proc, exited, steps, logs, logger };
}

describe(runGracefully.name, () => {
  it('on SIGINT drains, stops subsystems, closes the app and exits 0', async () => {
    const { lifecycle, app, proc, exited, steps, logger, logs } = setup();
    await lifecycle.onApplicationBootstrap();
    runGracefully(app, { drainDelaySec: 0, lifecycle, logger, process: proc as unknown as NodeJS.Process });
    proc.emit('SIGINT');
    expect(lifecycle.draining).toBe(true);
    expect(await exited).toBe(0);
    expect(steps).toEqual(['stop consumer', 'app.close']);
    expect(logs).toEqual(['SIGINT: draining; intake stops in 0 s', 'shutdown complete (exit code 0)']);
    expect(proc.listenerCount('SIGTERM')).toBe(0);
  });

  it('exits 1 when closing connections fails', async () => {
    const { lifecycle, app, proc, exited } = setup(true);
    await lifecycle.onApplicationBootstrap();
    runGracefully(app, { drainDelaySec: 0, lifecycle, process: proc as unknown as NodeJS.Process });
    proc.emit('SIGTERM');
    expect(await exited).toBe(1);
  });

  it('ends the process with 1 when a running subsystem fails for good, without the drain delay', async () => {
    const { lifecycle, app, proc, exited, steps, logger, logs } = setup();
    await lifecycle.onApplicationBootstrap();
    runGracefully(app, { drainDelaySec: 3_600, lifecycle, logger, process: proc as unknown as NodeJS.Process });
    lifecycle.fail('consumer');
    expect(await exited).toBe(1);
    expect(steps).toEqual(['stop consumer', 'app.close']);
    expect(logs[0]).toBe('error: subsystem consumer failed to keep running');
  });
});
