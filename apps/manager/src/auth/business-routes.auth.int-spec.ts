// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { type MongoTestTarget, withMongo } from '@fetcher/mongo-test-server';
import { FakeAuthorizationService, unsignedToken as token } from '../testing/fake-authorization-service';
import { ManagerHarness } from '../testing/manager-harness';
import { v7 as uuidv7 } from 'uuid';

const BASE = '/v1/management/connections';

describe('business routes behind plugin-auth', () => {
  let mongo: MongoTestTarget;
  let sut: ManagerHarness;
  let auth: FakeAuthorizationService;

  beforeAll(async () => {
    auth = await FakeAuthorizationService.start();
    mongo = await withMongo();
    sut = await ManagerHarness.start(mongo.uri, { PLUGIN_AUTH_ENABLED: 'true', PLUGIN_AUTH_ADDRESS: auth.url });
  });
  afterEach(() => {
    auth.override = undefined;
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

  it('asks for the job-status route too, before looking at the id', async () => {
    const res = await sut.request('GET', '/v1/fetcher/not-a-uuid');
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toBe('Missing Token');
    const user = token({ type: 'normal-user', owner: 'acme', sub: 'ann' });
    const refused = await sut.request('GET', `/v1/fetcher/${uuidv7()}`, { headers: { authorization: `Bearer ${user}` } });
    expect(refused.status).toBe(403);
    expect(refused.text).toBe('Forbidden');
    expect(auth.asked.at(-1)).toEqual({ sub: 'acme/ann', resource: 'fetcher', action: 'get' });
    const editor = { authorization: `Bearer ${token({ type: 'service' })}` };
    expect((await sut.request('GET', '/v1/fetcher/not-a-uuid', { headers: editor })).json()).toMatchObject({ code: 'FET-0404' });
  });

  it('passes the authorization service\'s own error body through on the job-status route', async () => {
    auth.override = { status: 429, body: '{"code":429,"message":"slow down"}' };
    const res = await sut.request('GET', `/v1/fetcher/${uuidv7()}`, { headers: { authorization: `Bearer ${token({ type: 'service' })}` } });
    expect(res.status).toBe(429);
    expect(res.text).toBe('{"code":429,"message":"slow down"}');
  });

  it('leaves the system routes open', async () => {
    expect((await sut.request('GET', '/version')).status).toBe(200);
  });
});
