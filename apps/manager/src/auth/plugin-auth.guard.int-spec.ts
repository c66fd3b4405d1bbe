import { Catch, Controller, Get, type ArgumentsHost, type ExceptionFilter, Module } from '@nestjs/common';
import { APP_FILTER, HttpAdapterHost, NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { Authorize } from './authorize.decorator';
import { logPluginAuthConnectivity } from './plugin-auth.health';
import { PLUGIN_AUTH_OPTIONS, type PluginAuthOptions } from './plugin-auth.options';
import { PluginAuthorizer } from './plugin-authorizer';
import { tenantGuardProviders } from './tenant-guard.providers';

interface AuthCall { body: Record<string, unknown>; authorization: string | undefined }
type AuthAnswer = { status: number; body: string; contentType?: string } | 'hang-up';

/** A small authorization service on 127.0.0.1 whose next answer each test chooses. */
class FakeAuthServer {
  readonly calls: AuthCall[] = [];
  answer: AuthAnswer = { status: 200, body: '{"authorized":true}' };
  readonly server: Server = createServer((req: IncomingMessage, res) => {
    let data = '';
    req.on('data', (chunk: Buffer) => { data += chunk.toString('utf8'); });
    req.on('end', () => {
      if (req.url === '/v1/authorize' && req.method === 'POST') this.calls.push({ body: JSON.parse(data) as Record<string, unknown>, authorization: req.headers.authorization });
      const answer = this.answer;
      if (answer === 'hang-up') { req.socket.destroy(); return; }
      res.writeHead(answer.status, { 'Content-Type': answer.contentType ?? 'application/json' }).end(answer.body);
    });
  });
  get url(): string { return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`; }
}

@Controller('v1/management/connections')
class ConnectionsController {
  @Get()
  @Authorize('connections', 'get')
  list(): { items: [] } { return { items: [] }; }
}

@Controller()
class ProbeController {
  @Get('health')
  health(): { status: string } { return { status: 'healthy' }; }
}

/** Stands in for the app's catch-all filter: it must not get to render authorization answers. */
@Catch()
class CatchAllFilter implements ExceptionFilter {
  constructor(private readonly host: HttpAdapterHost) {}
  catch(_error: unknown, host: ArgumentsHost): void {
    this.host.httpAdapter.reply(host.switchToHttp().getResponse(), { code: 'FET-0002' }, 500);
  }
}

const jwt = (claims: unknown) => `eyJhbGciOiJSUzI1NiJ9.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2ln`;
const userToken = jwt({ type: 'normal-user', owner: 'acme', sub: 'u-1' });

async function startApp(options: PluginAuthOptions): Promise<{ app: NestFastifyApplication; url: string }> {
  @Module({
    controllers: [ConnectionsController, ProbeController],
    providers: [
      { provide: PLUGIN_AUTH_OPTIONS, useValue: options },
      PluginAuthorizer,
      ...tenantGuardProviders({ multiTenant: false, tenantId: 'default' }),
      { provide: APP_FILTER, useClass: CatchAllFilter },
    ],
  })
  class AuthTestModule {}
  const app = await NestFactory.create<NestFastifyApplication>(AuthTestModule, new FastifyAdapter(), { logger: false });
  await app.listen(0, '127.0.0.1');
  return { app, url: `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}` };
}

describe('PluginAuthGuard against an authorization server on 127.0.0.1', () => {
  const auth = new FakeAuthServer();
  let app: NestFastifyApplication;
  let url: string;

  beforeAll(async () => {
    await new Promise<void>((resolve) => auth.server.listen(0, '127.0.0.1', resolve));
    ({ app, url } = await startApp({ enabled: true, address: `${auth.url}/` }));
  });
  afterAll(async () => {
    await app.close();
    await new Promise((resolve) => auth.server.close(resolve));
  });
  beforeEach(() => { auth.calls.length = 0; auth.answer = { status: 200, body: '{"authorized":true}' }; });

  const call = async (authorization?: string) => {
    const res = await fetch(`${url}/v1/management/connections`, { headers: authorization === undefined ? {} : { Authorization: authorization } });
    return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
  };

  it('lets an authorized caller through, asking with subject, resource, action and the raw header', async () => {
    expect(await call(`bEaReR ${userToken}`)).toMatchObject({ status: 200, body: '{"items":[]}' });
    expect(auth.calls).toEqual([{ body: { sub: 'acme/u-1', resource: 'connections', action: 'get' }, authorization: `bEaReR ${userToken}` }]);
  });

  it('accepts a bare token and uses the editor role for non-user tokens', async () => {
    expect((await call(jwt({ type: 'application' }))).status).toBe(200);
    expect(auth.calls[0]?.body.sub).toBe('admin/fetcher-editor-role');
  });

  it('answers 401 text/plain "Missing Token" without a token, and never asks', async () => {
    expect(await call()).toEqual({ status: 401, type: expect.stringMatching(/^text\/plain/), body: 'Missing Token' });
    expect(await call('Bearer ')).toMatchObject({ status: 401, body: 'Missing Token' });
    expect(auth.calls).toEqual([]);
  });

  it('answers 401 "Unauthorized" for an unparseable token or a user without owner', async () => {
    expect(await call('Bearer not-a-jwt')).toMatchObject({ status: 401, body: 'Unauthorized' });
    expect(await call(`Bearer ${jwt({ type: 'normal-user', sub: 'u' })}`)).toMatchObject({ status: 401, body: 'Unauthorized' });
  });

  it('answers 401 "Unauthorized" for a scheme other than Bearer, and never forwards it', async () => {
    expect(await call(`Basic ${userToken}`)).toEqual({ status: 401, type: expect.stringMatching(/^text\/plain/), body: 'Unauthorized' });
    expect(await call(`Token ${userToken}`)).toMatchObject({ status: 401, body: 'Unauthorized' });
    expect(auth.calls).toEqual([]);
  });

  it('answers 403 text/plain "Forbidden" when refused', async () => {
    auth.answer = { status: 200, body: '{"authorized":false}' };
    expect(await call(`Bearer ${userToken}`)).toEqual({ status: 403, type: expect.stringMatching(/^text\/plain/), body: 'Forbidden' });
  });

  it('passes a non-500 error body through with its status', async () => {
    const body = '{"code":"401","title":"Token Expired","message":"The provided token has expired."}';
    auth.answer = { status: 401, body };
    expect(await call(`Bearer ${userToken}`)).toEqual({ status: 401, type: expect.stringMatching(/^application\/json/), body });
  });

  it.each<[string, AuthAnswer]>([
    ['an error body with code 500', { status: 500, body: '{"code":"500","message":"boom"}' }],
    ['an unreadable answer', { status: 502, body: '<html>bad gateway</html>', contentType: 'text/html' }],
    ['a dropped connection', 'hang-up'],
  ])('answers 500 plain "Internal Server Error" for %s', async (_name, answer) => {
    auth.answer = answer;
    expect(await call(`Bearer ${userToken}`)).toEqual({ status: 500, type: expect.stringMatching(/^text\/plain/), body: 'Internal Server Error' });
  });

  it('logs at startup whether the service answers its health check', async () => {
    const lines: string[] = [];
    const log = { log: (m: string) => lines.push(m), warn: (m: string) => lines.push(`warn: ${m}`) };
    auth.answer = { status: 200, body: 'healthy', contentType: 'text/plain' };
    await logPluginAuthConnectivity({ enabled: true, address: auth.url }, log);
    auth.answer = { status: 503, body: 'starting' };
    await logPluginAuthConnectivity({ enabled: true, address: auth.url }, log);
    auth.answer = 'hang-up';
    await logPluginAuthConnectivity({ enabled: true, address: auth.url }, log);
    await logPluginAuthConnectivity({ enabled: false, address: auth.url }, log);
    expect(lines).toEqual([
      'plugin-auth reachable',
      'warn: plugin-auth health answered 503',
      'warn: plugin-auth unreachable at startup; authorized routes will answer 500 until it is',
      'plugin-auth disabled: business routes are open',
    ]);
  });

  it('keeps routes without @Authorize public', async () => {
    const res = await fetch(`${url}/health`);
    expect(res.status).toBe(200);
    expect(auth.calls).toEqual([]);
  });
});

describe('PluginAuthGuard when not active', () => {
  it.each<PluginAuthOptions>([{ enabled: false, address: 'http://127.0.0.1:9' }, { enabled: true, address: ' ' }, { enabled: true }])(
    'leaves every route open for %j', async (options) => {
      const { app, url } = await startApp(options);
      try {
        expect((await fetch(`${url}/v1/management/connections`)).status).toBe(200);
      } finally {
        await app.close();
      }
    });
});
