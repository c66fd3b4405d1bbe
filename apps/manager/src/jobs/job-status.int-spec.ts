// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { type MongoTestTarget, withMongo } from '@fetcher/mongo-test-server';
import { v7 as uuidv7 } from 'uuid';
import { ManagerHarness } from '../testing/manager-harness';

/**
 * The route clients poll while a job runs, served by the jobs controller (it was a Fastify route of
 * its own until the same-run measurement in docs/architecture.md): the app's error bodies and the
 * app-wide hooks (request id, CORS, metrics). Its authorization is in auth/business-routes.auth.int-spec.ts.
 */
describe('GET /v1/fetcher/{id}', () => {
  let mongo: MongoTestTarget;
  let sut: ManagerHarness;

  beforeAll(async () => {
    mongo = await withMongo();
    sut = await ManagerHarness.start(mongo.uri);
  });
  afterAll(async () => {
    await sut?.close();
    await mongo?.close();
  });

  it('answers with the contract\'s error bodies', async () => {
    const invalid = await sut.request('GET', '/v1/fetcher/not-a-uuid');
    expect(invalid.status).toBe(400);
    expect(invalid.json()).toEqual({ code: 'FET-0404', title: 'Invalid Path Parameter', message: 'invalid job id' });
    const missing = await sut.request('GET', `/v1/fetcher/${uuidv7()}`);
    expect(missing.status).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'FET-1001', title: 'Entity Not Found' });
  });

  it('echoes the request id, carries the CORS headers and is counted under its route template', async () => {
    const res = await sut.request('GET', `/v1/fetcher/${uuidv7()}`, { headers: { 'x-request-id': 'poll-1', origin: 'https://app.example' } });
    expect(res.headers['x-request-id']).toBe('poll-1');
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
    const metrics = await sut.request('GET', '/metrics');
    expect(metrics.text).toMatch(/^http_requests_total\{method="GET",route="\/v1\/fetcher\/:id",status_code="404"\} [1-9]\d*$/m);
  });
});
