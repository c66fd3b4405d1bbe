// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { type MongoTestTarget, withMongo } from '@fetcher/mongo-test-server';
import { v7 as uuidv7 } from 'uuid';
import { FakeAuthorizationService, unsignedToken as token } from '../testing/fake-authorization-service';
import { ManagerHarness } from '../testing/manager-harness';

/**
 * The job-status route is served by Fastify directly, outside Nest's router: these check that it
 * still gets what every business route gets from Nest (authorization, error bodies) and from the
 * app-wide hooks (request id, CORS, metrics).
 */
describe('GET /v1/fetcher/{id}, served outside Nest\'s router', () => {
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

  const editor = { authorization: `Bearer ${token({ type: 'service' })}` };

  it('asks before looking at the id: no token is a plain-text 401', async () => {
    const res = await sut.request('GET', '/v1/fetcher/not-a-uuid');
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toBe('Missing Token');
  });

  it('passes the route resource and action, and answers a refusal with a plain-text 403', async () => {
    const user = token({ type: 'normal-user', owner: 'acme', sub: 'ann' });
    const res = await sut.request('GET', `/v1/fetcher/${uuidv7()}`, { headers: { authorization: `Bearer ${user}` } });
    expect(res.status).toBe(403);
    expect(res.text).toBe('Forbidden');
    expect(auth.asked.at(-1)).toEqual({ sub: 'acme/ann', resource: 'fetcher', action: 'get' });
  });

  it('passes the authorization service\'s own error body through', async () => {
    auth.override = { status: 429, body: '{"code":429,"message":"slow down"}' };
    const res = await sut.request('GET', `/v1/fetcher/${uuidv7()}`, { headers: editor });
    expect(res.status).toBe(429);
    expect(res.text).toBe('{"code":429,"message":"slow down"}');
  });

  it('lets an authorized caller through to the contract\'s error bodies', async () => {
    const invalid = await sut.request('GET', '/v1/fetcher/not-a-uuid', { headers: editor });
    expect(invalid.status).toBe(400);
    expect(invalid.json()).toEqual({ code: 'FET-0404', title: 'Invalid Path Parameter', message: 'invalid job id' });
    const missing = await sut.request('GET', `/v1/fetcher/${uuidv7()}`, { headers: editor });
    expect(missing.status).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'FET-1001', title: 'Entity Not Found' });
  });

  it('echoes the request id, carries the CORS headers and is counted under its route template', async () => {
    const res = await sut.request('GET', `/v1/fetcher/${uuidv7()}`, { headers: { ...editor, 'x-request-id': 'poll-1', origin: 'https://app.example' } });
    expect(res.headers['x-request-id']).toBe('poll-1');
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
    const metrics = await sut.request('GET', '/metrics');
    expect(metrics.text).toMatch(/^http_requests_total\{method="GET",route="\/v1\/fetcher\/:id",status_code="404"\} [1-9]\d*$/m);
  });
});
