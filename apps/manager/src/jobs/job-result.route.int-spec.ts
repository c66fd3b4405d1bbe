import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { encodeNewJob, uuidToBinary } from '@fetcher/contracts';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { type MongoTestTarget, withMongo } from '@fetcher/mongo-test-server';
import { aMasterKey, storedResult } from '@fetcher/platform/testing';
import type { mongo } from 'mongoose';
import { v7 as uuidv7 } from 'uuid';
import { ManagerHarness } from '../testing/manager-harness';

// s3rver ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (o: Record<string, unknown>) => { run(): Promise<{ port: number }>; close(): Promise<void> };

/** An unsigned JWT of user `acme/<sub>`: the Manager reads its claims, the authorization service below decides. */
const token = (sub: string) => [{ alg: 'none', typ: 'JWT' }, { sub, owner: 'acme', type: 'normal-user' }].map((part) => Buffer.from(JSON.stringify(part)).toString('base64url')).join('.') + '.sig';
const READER = token('status-reader');
const DOWNLOADER = token('downloader');

/** Grants `fetcher` to both subjects, `fetcher-result` only to the downloader; records what it was asked. */
async function startAuthService(): Promise<{ url: string; server: Server; asked: { sub: string; resource: string; action: string }[] }> {
  const asked: { sub: string; resource: string; action: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const question = JSON.parse(body || '{}') as { sub: string; resource: string; action: string };
      asked.push(question);
      const authorized = question.resource === 'fetcher' || (question.resource === 'fetcher-result' && question.sub === 'acme/downloader');
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ authorized }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, server, asked };
}

const DOCUMENT = JSON.stringify({ 'pg-main': { 'public.customers': Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `customer ${i}`, city: 'Zürich' })) } });

/**
 * GET /v1/fetcher/{id}/result against real storage (s3rver) and a real job store (the Mongo test
 * server): results written in the Worker's format (base64 of nonce || AES-256-GCM ciphertext || tag
 * under the storage sub-key, HMAC-SHA256 under the external sub-key, at the prefix plus the job's
 * result path), read back through the Manager's S3 client settings.
 */
describe('GET /v1/fetcher/{id}/result', () => {
  const master = aMasterKey();
  const bucket = `results-${randomUUID().slice(0, 8)}`;
  const prefix = 'fetcher-it/';
  let mongo: MongoTestTarget;
  let s3dir: string;
  let s3: { close(): Promise<void> };
  let client: S3Client;
  let endpoint: string;
  let sut: ManagerHarness;

  const storageEnv = () => ({
    APP_ENC_KEY: master.toString('base64'),
    OBJECT_STORAGE_BUCKET: bucket,
    OBJECT_STORAGE_ENDPOINT: endpoint,
    OBJECT_STORAGE_KEY_PREFIX: prefix,
    OBJECT_STORAGE_USE_PATH_STYLE: 'true',
    OBJECT_STORAGE_ACCESS_KEY_ID: 'S3RVER',
    OBJECT_STORAGE_SECRET_KEY: 'S3RVER',
  });

  /** A completed job whose result the Worker wrote; `object` overrides the stored bytes. */
  const aCompletedJob = async (harness: ManagerHarness, options: { object?: (stored: string) => string; status?: string } = {}) => {
    const id = uuidv7();
    const stored = storedResult(master, DOCUMENT);
    const resultPath = `external-data/${id}.json`;
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: `${prefix}${resultPath}`, Body: options.object ? options.object(stored.object) : stored.object }));
    const now = new Date();
    await harness.collection('job').insertOne(
      // The shared document codec's _id is a UUID Binary, which the driver's default typing does not know.
      encodeNewJob({ id, status: 'pending', mappedFields: { 'pg-main': { 'public.customers': ['id'] } }, metadata: { source: 'reporter' }, requestHash: randomUUID(), createdAt: now, completedAt: null, dispatchedAt: now, dispatchAttempts: 1 }) as unknown as mongo.Document,
    );
    const status = options.status ?? 'completed';
    await harness.collection('job').updateOne(
      { _id: uuidToBinary(id) },
      { $set: { status, dedup_active: false, completed_at: now, ...(status === 'completed' ? { result_path: resultPath, result_hmac: stored.hmac } : {}) } },
    );
    return { id, stored };
  };

  beforeAll(async () => {
    mongo = await withMongo();
    s3dir = mkdtempSync(join(tmpdir(), 's3-result-route-'));
    const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3dir });
    const { port } = await server.run();
    s3 = server;
    endpoint = `http://127.0.0.1:${port}`;
    client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    sut = await ManagerHarness.start(mongo.uri, { ...storageEnv(), RESULT_DOWNLOAD_ENABLED: 'true' });
  });
  afterAll(async () => {
    await sut?.close();
    client?.destroy();
    await s3?.close();
    await mongo?.close();
    rmSync(s3dir, { recursive: true, force: true });
  });

  it('streams exactly the plaintext the Worker encrypted, as a JSON attachment that is not cached', async () => {
    const { id } = await aCompletedJob(sut);
    const res = await sut.request('GET', `/v1/fetcher/${id}/result`);
    expect(res.status).toBe(200);
    expect(res.text).toBe(DOCUMENT);
    expect(res.headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(DOCUMENT)),
      'content-disposition': `attachment; filename="${id}.json"`,
      'cache-control': 'no-store',
    });
  });

  it('sends no CORS headers: a page of another origin cannot read the document', async () => {
    const { id } = await aCompletedJob(sut);
    const res = await sut.request('GET', `/v1/fetcher/${id}/result`, { headers: { origin: 'https://evil.example' } });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers 500 FET-1026 for an altered object, with no byte of it and no detail', async () => {
    const { id } = await aCompletedJob(sut, { object: (o) => `${o.slice(0, 100)}${o[100] === 'A' ? 'B' : 'A'}${o.slice(101)}` });
    const res = await sut.request('GET', `/v1/fetcher/${id}/result`);
    expect(res.status).toBe(500);
    expect(res.json()).toEqual({ code: 'FET-1026', title: 'Result Integrity Error', message: 'The stored result failed its integrity check and was not sent. Contact the operator.' });
  });

  it('answers 500 FET-1026 for a truncated object', async () => {
    const { id } = await aCompletedJob(sut, { object: (o) => o.slice(0, o.length - 8) });
    expect((await sut.request('GET', `/v1/fetcher/${id}/result`)).json()).toMatchObject({ code: 'FET-1026' });
  });

  it('answers 404 FET-1001 for an unknown job, 409 FET-1024 for one without a result, 404 FET-1025 when the object is gone', async () => {
    const unknown = await sut.request('GET', `/v1/fetcher/${uuidv7()}/result`);
    expect({ status: unknown.status, code: unknown.json().code }).toEqual({ status: 404, code: 'FET-1001' });
    const { id: failed } = await aCompletedJob(sut, { status: 'failed' });
    const notReady = await sut.request('GET', `/v1/fetcher/${failed}/result`);
    expect(notReady.status).toBe(409);
    expect(notReady.json()).toEqual({ code: 'FET-1024', title: 'Result Not Available', message: 'The job is failed; only a completed job has a result to download.' });
    const { id } = await aCompletedJob(sut);
    await sut.collection('job').updateOne({ _id: uuidToBinary(id) }, { $set: { result_path: `external-data/${uuidv7()}.json` } });
    const gone = await sut.request('GET', `/v1/fetcher/${id}/result`);
    expect({ status: gone.status, code: gone.json().code }).toEqual({ status: 404, code: 'FET-1025' });
    const invalid = await sut.request('GET', '/v1/fetcher/not-a-uuid/result');
    expect({ status: invalid.status, code: invalid.json().code }).toEqual({ status: 400, code: 'FET-0404' });
  });

  it('answers 503 FET-0003 when the storage cannot be reached', async () => {
    const harness = await ManagerHarness.start(mongo.uri, { ...storageEnv(), OBJECT_STORAGE_ENDPOINT: 'http://127.0.0.1:9', RESULT_DOWNLOAD_ENABLED: 'true' });
    try {
      const { id } = await aCompletedJob(harness);
      const res = await harness.request('GET', `/v1/fetcher/${id}/result`);
      expect({ status: res.status, code: res.json().code }).toEqual({ status: 503, code: 'FET-0003' });
    } finally {
      await harness.close();
    }
  });

  it('is an unknown route (404) when RESULT_DOWNLOAD_ENABLED is not set, even for a completed job', async () => {
    const harness = await ManagerHarness.start(mongo.uri, storageEnv());
    try {
      const { id } = await aCompletedJob(harness);
      const res = await harness.request('GET', `/v1/fetcher/${id}/result`);
      expect(res.status).toBe(404);
      expect(res.json()).toEqual({ code: 404, title: 'request_failed', message: `Cannot GET /v1/fetcher/${id}/result` });
      expect((await harness.request('GET', `/v1/fetcher/${id}`)).status).toBe(200);
    } finally {
      await harness.close();
    }
  });

  it('on a Manager listening on loopback only, answers only requests addressed to a loopback name (no DNS rebinding)', async () => {
    const harness = await ManagerHarness.start(mongo.uri, { ...storageEnv(), RESULT_DOWNLOAD_ENABLED: 'true', SERVER_ADDRESS: '127.0.0.1:4006' });
    try {
      const { id } = await aCompletedJob(harness);
      for (const host of ['127.0.0.1:4006', 'localhost:4006', '[::1]:4006']) {
        expect({ host, status: (await harness.request('GET', `/v1/fetcher/${id}/result`, { headers: { host } })).status }).toEqual({ host, status: 200 });
      }
      const rebound = await harness.request('GET', `/v1/fetcher/${id}/result`, { headers: { host: 'attacker.example:4006' } });
      expect(rebound.status).toBe(404);
      expect(rebound.text).not.toContain('customer');
    } finally {
      await harness.close();
    }
  });

  it('with plugin-auth, needs the fetcher-result grant: reading the job is not enough', async () => {
    const auth = await startAuthService();
    const harness = await ManagerHarness.start(mongo.uri, { ...storageEnv(), RESULT_DOWNLOAD_ENABLED: 'true', PLUGIN_AUTH_ENABLED: 'true', PLUGIN_AUTH_ADDRESS: auth.url });
    try {
      const { id } = await aCompletedJob(harness);
      expect((await harness.request('GET', `/v1/fetcher/${id}/result`)).status).toBe(401);
      expect((await harness.request('GET', `/v1/fetcher/${id}`, { headers: { authorization: `Bearer ${READER}` } })).status).toBe(200);
      const refused = await harness.request('GET', `/v1/fetcher/${id}/result`, { headers: { authorization: `Bearer ${READER}` } });
      expect({ status: refused.status, text: refused.text }).toEqual({ status: 403, text: 'Forbidden' });
      const allowed = await harness.request('GET', `/v1/fetcher/${id}/result`, { headers: { authorization: `Bearer ${DOWNLOADER}` } });
      expect(allowed.status).toBe(200);
      expect(allowed.text).toBe(DOCUMENT);
      expect(auth.asked).toContainEqual({ sub: 'acme/downloader', resource: 'fetcher-result', action: 'get' });
      // Authorization comes first: a refused caller learns nothing about the id.
      const unknown = await harness.request('GET', `/v1/fetcher/${uuidv7()}/result`, { headers: { authorization: `Bearer ${READER}` } });
      expect(unknown.status).toBe(403);
    } finally {
      await harness.close();
      auth.server.closeAllConnections();
      auth.server.close();
    }
  });
});
