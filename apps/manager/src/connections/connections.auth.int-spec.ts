import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { type MongoTestTarget, withMongo } from '@fetcher/mongo-test-server';
import { ManagerHarness } from '../testing/manager-harness';

const BASE = '/v1/management/connections';
/** An unsigned JWT: the guard reads its claims; the authorization service decides. */
const token = (claims: Record<string, unknown>) =>
  ['{"alg":"none"}', JSON.stringify(claims)].map((p) => Buffer.from(p).toString('base64url')).join('.') + '.sig';

describe('connection routes behind plugin-auth', () => {
  let mongo: MongoTestTarget;
  let sut: ManagerHarness;
  let auth: Server;
  const asked: { sub: string; resource: string; action: string }[] = [];

  beforeAll(async () => {
    // The authorization service: allows the editor role, refuses everybody else.
    auth = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const request = JSON.parse(body) as { sub: string; resource: string; action: string };
        asked.push(request);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ authorized: request.sub === 'admin/fetcher-editor-role' }));
      });
    });
    auth.listen(0, '127.0.0.1');
    await once(auth, 'listening');
    const address = auth.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    mongo = await withMongo();
    sut = await ManagerHarness.start(mongo.uri, { PLUGIN_AUTH_ENABLED: 'true', PLUGIN_AUTH_ADDRESS: `http://127.0.0.1:${address.port}` });
  });
  afterAll(async () => {
    await sut?.close();
    await mongo?.close();
    auth?.close();
  });

  it('asks before any validation: no token is a plain-text 401', async () => {
    const res = await sut.request('POST', BASE, { body: 'not json' });
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toBe('Missing Token');
  });

  it('passes the route resource and action, and answers a refusal with a plain-text 403', async () => {
    const user = token({ type: 'normal-user', owner: 'acme', sub: 'ann' });
    const res = await sut.request('DELETE', `${BASE}/not-an-id`, { headers: { authorization: `Bearer ${user}` } });
    expect(res.status).toBe(403);
    expect(res.text).toBe('Forbidden');
    expect(asked.at(-1)).toEqual({ sub: 'acme/ann', resource: 'connections', action: 'delete' });
  });

  it('lets an authorized caller through to the route checks', async () => {
    const editor = token({ type: 'service' });
    const res = await sut.request('PATCH', `${BASE}/not-an-id`, { headers: { authorization: `Bearer ${editor}` }, body: {} });
    expect(res.json()).toMatchObject({ code: 'FET-0404' });
    expect(asked.at(-1)).toEqual({ sub: 'admin/fetcher-editor-role', resource: 'connections', action: 'patch' });
  });

  it('leaves the system routes open', async () => {
    expect((await sut.request('GET', '/version')).status).toBe(200);
  });
});
