// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { type MongoTestTarget, withMongo } from '@fetcher/mongo-test-server';
import { FakeAuthorizationService, unsignedToken as token } from '../testing/fake-authorization-service';
import { ManagerHarness } from '../testing/manager-harness';

const BASE = '/v1/management/connections';

describe('connection routes behind plugin-auth', () => {
  let mongo: MongoTestTarget;
  let sut: ManagerHarness;
  let auth: FakeAuthorizationService;

  beforeAll(async () => {
    auth = await FakeAuthorizationService.start();
    mongo = await withMongo();
    sut = await ManagerHarness.start(mongo.uri, { PLUGIN_AUTH_ENABLED: 'true', PLUGIN_AUTH_ADDRESS: auth.url });
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
    expect(auth.asked.at(-1)).toEqual({ sub: 'acme/ann', resource: 'connections', action: 'delete' });
  });

  it('lets an authorized caller through to the route checks', async () => {
    const editor = token({ type: 'service' });
    const res = await sut.request('PATCH', `${BASE}/not-an-id`, { headers: { authorization: `Bearer ${editor}` }, body: {} });
    expect(res.json()).toMatchObject({ code: 'FET-0404' });
    expect(auth.asked.at(-1)).toEqual({ sub: 'admin/fetcher-editor-role', resource: 'connections', action: 'patch' });
  });

  it('leaves the system routes open', async () => {
    expect((await sut.request('GET', '/version')).status).toBe(200);
  });
});
