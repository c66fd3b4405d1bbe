import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join } from 'node:path';

// The OTLP/HTTP export in a real process (the exporter loads node:http through import(), which
// jest's sandbox cannot run): the compiled platform library sends one span to a collector here.
const ROOT = join(__dirname, '..', '..');
const FIXTURE = `
const platform = require('./libs/platform/dist/index.js');
(async () => {
  const telemetry = platform.startTelemetry({ enabled: true, serviceName: 'fetcher-e2e', serviceVersion: '9.9.9', endpoint: process.argv[1] });
  const span = platform.observabilityFromTracer(telemetry.tracer).startSpan('engine.execute', { 'fetcher.tables': 2 });
  span.end({ category: 'timeout', message: 'detail that must stay out of traces' });
  await telemetry.shutdown();
})().catch((error) => { process.stderr.write(String(error && error.message) + '\\n'); process.exit(1); });
`;

describe('startTelemetry in a real process', () => {
  const received: { path: string; type: string | undefined; body: string }[] = [];
  let collector: Server;
  beforeAll(async () => {
    collector = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => { body += chunk.toString('utf8'); });
      req.on('end', () => {
        received.push({ path: req.url ?? '', type: req.headers['content-type'], body });
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise((resolve) => collector.close(resolve)));

  it('exports spans over OTLP/HTTP with the service resource and the error category only', async () => {
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    const child = spawn(process.execPath, ['-e', FIXTURE, endpoint], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(received.map((r) => [r.path, r.type])).toEqual([['/v1/traces', 'application/json']]);
    const body = received[0].body;
    for (const text of ['engine.execute', 'fetcher-e2e', '9.9.9', 'fetcher.error.category', 'timeout']) expect(body).toContain(text);
    expect(body).not.toContain('detail that must stay out of traces');
  });
});
