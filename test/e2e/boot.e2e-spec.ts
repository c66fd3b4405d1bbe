import { once } from 'node:events';
import { type AppProcess, freePort, runApp, startApp } from './support/app-process';

describe('the built apps boot, answer /health and stop on SIGTERM', () => {
  const started: AppProcess[] = [];
  afterAll(async () => {
    await Promise.all(started.map((app) => app.stop()));
  });

  it('manager', async () => {
    const port = await freePort();
    const app = await startApp('manager', port, { SERVER_ADDRESS: `127.0.0.1:${port}`, VERSION: '9.9.9' });
    started.push(app);
    expect(await (await fetch(`${app.baseUrl}/health`)).json()).toEqual({ status: 'healthy' });
    expect(await (await fetch(`${app.baseUrl}/version`)).json()).toMatchObject({ version: '9.9.9' });
    const exit = await app.stop();
    expect(exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);
  });

  it('worker', async () => {
    const port = await freePort();
    const app = await startApp('worker', port, { HEALTH_PORT: String(port) });
    started.push(app);
    expect(await (await fetch(`${app.baseUrl}/health`)).json()).toEqual({ status: 'healthy' });
    const exit = await app.stop();
    expect(exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);
  });

  it('manager refuses a bad SERVER_ADDRESS with a message naming the variable, not its value', async () => {
    const child = runApp('manager', { SERVER_ADDRESS: 'private-host:99999' });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(1);
    expect(stderr).toContain('SERVER_ADDRESS');
    expect(stderr).not.toContain('private-host');
  });
});
