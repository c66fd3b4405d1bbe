import { Controller, Get, Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger, LoggerModule, PinoLogger } from 'nestjs-pino';
import { type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { PlatformModule } from '../platform.module';
import { loggerModuleOptions } from './logger-options';

const PASSWORD = 'Sup3r-s3cret!pw';
const DSN = `postgres://reporter:${PASSWORD}@db.internal:5432/sales`;

describe('loggerModuleOptions in a Fastify app', () => {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk: Buffer, _enc, done) { lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)); done(); } });
  let app: NestFastifyApplication;
  let url: string;

  @Controller()
  class LeakyController {
    constructor(private readonly logger: PinoLogger) {}
    @Get('leak')
    leak(): { ok: true } {
      this.logger.info({ connection: { host: 'db', password: PASSWORD, ssl: { ca: '-----BEGIN CERTIFICATE-----\nX\n-----END CERTIFICATE-----' } } }, 'created');
      this.logger.warn(`connect failed for ${DSN}`);
      this.logger.error({ err: new Error(`auth failed: ${DSN} password=${PASSWORD}`) }, 'test failed');
      return { ok: true };
    }

    @Get('fail')
    fail(): never {
      throw new Error(`lost ${DSN}`);
    }
  }

  // As the apps mount them: the request side of logging comes with PlatformModule.
  @Module({
    imports: [
      LoggerModule.forRoot(loggerModuleOptions({ level: 'info', service: 'manager', destination: sink })),
      PlatformModule.forRoot({ service: 'manager', version: '0.0.0', deploymentMode: 'local', drainDelaySec: 0, probes: [] }),
    ],
    controllers: [LeakyController],
  })
  class LoggingTestModule {}

  beforeAll(async () => {
    app = await NestFactory.create<NestFastifyApplication>(LoggingTestModule, new FastifyAdapter(), { bufferLogs: true });
    app.useLogger(app.get(Logger));
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());

  it('echoes an acceptable X-Request-Id and logs it with every line of the request', async () => {
    const res = await fetch(`${url}/leak?token=${PASSWORD}`, { headers: { 'X-Request-Id': 'req-123', authorization: `Bearer ${PASSWORD}` } });
    expect(res.headers.get('x-request-id')).toBe('req-123');
    const mine = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.requestId === 'req-123');
    expect(mine.map((l) => l.msg)).toEqual(expect.arrayContaining(['created', 'test failed', 'request completed']));
    expect(mine.every((l) => l.service === 'manager')).toBe(true);
  });

  it('generates a UUIDv7 when the header is absent or unacceptable', async () => {
    for (const headers of [{}, { 'X-Request-Id': 'has spaces and\ttabs' }] as Record<string, string>[]) {
      const res = await fetch(`${url}/leak`, { headers });
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });

  it('logs an answer from status 500 on as `request errored`, with the request id', async () => {
    await fetch(`${url}/fail`, { headers: { 'X-Request-Id': 'req-fail' } });
    const line = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.requestId === 'req-fail' && l.msg === 'request errored');
    expect(line).toMatchObject({ level: 30, req: { id: 'req-fail', method: 'GET', url: '/fail' }, res: { statusCode: 500 }, responseTime: expect.any(Number) });
  });

  it('never writes the planted password, DSN, certificate or bearer token', () => {
    const all = lines.join('\n');
    expect(lines.length).toBeGreaterThan(6);
    expect(all).not.toContain(PASSWORD);
    expect(all).not.toContain(DSN);
    expect(all).not.toContain('BEGIN CERTIFICATE');
    expect(all).toContain('postgres://[REDACTED]@db.internal:5432/sales');
  });
});

describe('loggerModuleOptions at a level above info', () => {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk: Buffer, _enc, done) { lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)); done(); } });
  let app: NestFastifyApplication;
  let url: string;

  @Controller()
  class QuietController {
    constructor(private readonly logger: PinoLogger) {}
    @Get('quiet')
    quiet(): { ok: true } {
      this.logger.info('not written');
      this.logger.error('written, with the request');
      return { ok: true };
    }
  }

  beforeAll(async () => {
    const module: Type = createModule('error', sink, QuietController);
    app = await NestFactory.create<NestFastifyApplication>(module, new FastifyAdapter(), { logger: false });
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());

  it('writes no request lines, still echoes the id and still ties the request\'s own lines to it', async () => {
    const res = await fetch(`${url}/quiet`, { headers: { 'X-Request-Id': 'req-quiet' } });
    await fetch(`${url}/health`);
    expect(res.headers.get('x-request-id')).toBe('req-quiet');
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ level: 50, requestId: 'req-quiet', req: { id: 'req-quiet', method: 'GET', url: '/quiet' }, msg: 'written, with the request' }),
    ]);
  });
});

function createModule(level: string, sink: Writable, controller: Type): Type {
  @Module({
    imports: [
      LoggerModule.forRoot(loggerModuleOptions({ level, service: 'worker', destination: sink })),
      PlatformModule.forRoot({ service: 'worker', version: '0.0.0', deploymentMode: 'local', drainDelaySec: 0, probes: [] }),
    ],
    controllers: [controller],
  })
  class QuietModule {}
  return QuietModule;
}
