import { Controller, Get, type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger, LoggerModule, PinoLogger } from 'nestjs-pino';
import { type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { loggerModuleOptions } from './logger-options';
import { fastifyRequestIdOptions, RequestIdMiddleware } from './request-id';

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
  }

  @Module({ imports: [LoggerModule.forRoot(loggerModuleOptions({ level: 'info', service: 'manager', destination: sink }))], controllers: [LeakyController] })
  class LoggingTestModule implements NestModule {
    configure(consumer: MiddlewareConsumer) {
      consumer.apply(RequestIdMiddleware).forRoutes('*');
    }
  }

  beforeAll(async () => {
    app = await NestFactory.create<NestFastifyApplication>(LoggingTestModule, new FastifyAdapter(fastifyRequestIdOptions), { bufferLogs: true });
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

  it('never writes the planted password, DSN, certificate or bearer token', () => {
    const all = lines.join('\n');
    expect(lines.length).toBeGreaterThan(6);
    expect(all).not.toContain(PASSWORD);
    expect(all).not.toContain(DSN);
    expect(all).not.toContain('BEGIN CERTIFICATE');
    expect(all).toContain('postgres://[REDACTED]@db.internal:5432/sales');
  });
});
