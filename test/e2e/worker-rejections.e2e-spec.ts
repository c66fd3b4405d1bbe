import { randomBytes, randomUUID } from 'node:crypto';
import { type AppProcess, freePort, startApp } from './support/app-process';
import { jobBody, jobDoc, publishJob, seedJob, signedHeaders, startWorkerWorld, until, type WorkerWorld } from './support/worker-harness';

const MAPPED = { 'pg-main': { orders: ['id'] } };

/** `fetcher_worker_messages_rejected_total{reason="..."}` from /metrics. */
async function rejected(worker: AppProcess, reason: string): Promise<number> {
  const text = await (await fetch(`${worker.baseUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`fetcher_worker_messages_rejected_total{reason="${reason}"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/**
 * Production only: the Worker's own /readyz on MongoDB, RabbitMQ and S3, and raw messages published
 * straight to RabbitMQ (expired, malformed, for unknown jobs) with their dead letters. In standalone
 * mode the Worker serves no HTTP and only the Manager in the same process publishes, so no such
 * message can reach its queue.
 */
describe('worker: messages that fail verification are dead-lettered with their reason', () => {
  let world: WorkerWorld;
  let worker: AppProcess;

  beforeAll(async () => {
    world = await startWorkerWorld();
    const port = await freePort();
    worker = await startApp('worker', port, world.env({ HEALTH_PORT: String(port) }));
  });

  afterAll(async () => {
    await worker?.stop();
    await world?.close();
  });

  const deadLetterOf = (jobId: string) =>
    until(() => world.deadLetters.find((m) => m.properties.headers?.jobId === jobId), 30_000, `the dead letter of ${jobId}`);

  it('answers /readyz with mongodb, rabbitmq and s3 up', async () => {
    const response = await fetch(`${worker.baseUrl}/readyz`);
    const body = (await response.json()) as { status: string; checks: Record<string, { status: string }> };
    expect(response.status).toBe(200);
    expect(body.checks).toMatchObject({ mongodb: { status: 'up' }, rabbitmq: { status: 'up' }, s3: { status: 'up' } });
  });

  it.each([
    ['unsigned', 'missing_signature', (h: Record<string, unknown>) => ({ ...h, 'x-message-signature': undefined })],
    ['tampered', 'mismatch', (h: Record<string, unknown>) => ({ ...h, 'x-message-signature': (h['x-message-signature'] as string).replace(/^./, (c) => (c === 'a' ? 'b' : 'a')) })],
    ['signed with another key', 'mismatch', (_h: Record<string, unknown>, body: Buffer, jobId: string, queue: string) => signedHeaders(body, jobId, queue, { key: randomBytes(32) })],
    ['for another tenant', 'mismatch', (h: Record<string, unknown>) => ({ ...h, 'X-Tenant-ID': 'someone-else' })],
    ['forged and from the future', 'future_timestamp', (_h: Record<string, unknown>, body: Buffer, jobId: string, queue: string) => signedHeaders(body, jobId, queue, { t: Math.floor(Date.now() / 1000) + 120, key: randomBytes(32) })],
    ['with a malformed timestamp', 'bad_timestamp', (h: Record<string, unknown>) => ({ ...h, t: 'yesterday' })],
    ['with an unknown signature version', 'bad_version', (h: Record<string, unknown>) => ({ ...h, 'signature-version': 'v9' })],
  ])('a message %s is dead-lettered (%s), counted, and its job left pending', async (_name, reason, mutate) => {
    const jobId = randomUUID();
    await seedJob(world.db, jobId, MAPPED);
    const before = await rejected(worker, reason);
    const body = jobBody(jobId, MAPPED);
    const headers = mutate(signedHeaders(body, jobId, world.workQueue), body, jobId, world.workQueue) as Record<string, unknown>;
    publishJob(world, body, Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)));
    const dead = await deadLetterOf(jobId);
    expect(dead.content.equals(body)).toBe(true);
    await until(async () => ((await rejected(worker, reason)) > before ? true : undefined), 10_000, 'the metric');
    expect((await jobDoc(world, jobId))?.status).toBe('pending');
  });

  it('an authentic but expired message is dead-lettered and fails its pending job', async () => {
    const jobId = randomUUID();
    await seedJob(world.db, jobId, MAPPED);
    const body = jobBody(jobId, MAPPED);
    publishJob(world, body, signedHeaders(body, jobId, world.workQueue, { t: Math.floor(Date.now() / 1000) - 600 }));
    await deadLetterOf(jobId);
    const job = await until(async () => {
      const doc = await jobDoc(world, jobId);
      return doc?.status === 'failed' ? doc : undefined;
    });
    expect((job.metadata as Record<string, unknown>).error).toBe('message expired before processing');
    const event = await until(() => world.events.find((e) => e.properties.headers?.['ce-subject']?.toString() === jobId));
    expect(event.properties.headers?.['ce-id']?.toString()).toBe(`fetcher.job.failed.${jobId}`);
    expect(await rejected(worker, 'expired')).toBeGreaterThanOrEqual(1);
  });

  it('an authentic message from the future (clock skew) is dead-lettered and fails its pending job with the reason', async () => {
    const jobId = randomUUID();
    await seedJob(world.db, jobId, MAPPED);
    const body = jobBody(jobId, MAPPED);
    publishJob(world, body, signedHeaders(body, jobId, world.workQueue, { t: Math.floor(Date.now() / 1000) + 120 }));
    await deadLetterOf(jobId);
    const job = await until(async () => {
      const doc = await jobDoc(world, jobId);
      return doc?.status === 'failed' ? doc : undefined;
    });
    expect((job.metadata as Record<string, unknown>).error).toBe('message timestamp is in the future: the clocks of the Manager and the Worker differ by more than 30 s');
    const event = await until(() => world.events.find((e) => e.properties.headers?.['ce-subject']?.toString() === jobId));
    expect(event.properties.headers?.['ce-id']?.toString()).toBe(`fetcher.job.failed.${jobId}`);
  });

  it('a signed message with a malformed body fails the job it names and is acked, not dead-lettered', async () => {
    const jobId = randomUUID();
    await seedJob(world.db, jobId, MAPPED);
    const body = Buffer.from(JSON.stringify({ createdAt: 'x', jobId, mappedFields: {}, metadata: {} }));
    publishJob(world, body, signedHeaders(body, jobId, world.workQueue));
    const job = await until(async () => {
      const doc = await jobDoc(world, jobId);
      return doc?.status === 'failed' ? doc : undefined;
    });
    expect((job.metadata as Record<string, unknown>).error).toBe('FET-0052: mappedFields cannot be empty');
    await until(async () => ((await world.channel.checkQueue(world.workQueue)).messageCount === 0 ? true : undefined));
    expect(world.deadLetters.some((m) => m.properties.headers?.jobId === jobId)).toBe(false);
    // The event carries the stored job's metadata, not the body's (empty) one.
    const event = await until(() => world.events.find((e) => e.properties.headers?.['ce-subject']?.toString() === jobId));
    expect(JSON.parse(event.content.toString())).toEqual({ jobId, metadata: { source: 'reporter', error: { message: 'FET-0052: mappedFields cannot be empty' } }, status: 'failed' });
  });

  it.each([
    ['a string mappedFields', 'malformed_json', (jobId: string) => ({ jobId, mappedFields: 'pg-main' })],
    ['a datasource without tables', 'malformed_tables', (jobId: string) => ({ jobId, mappedFields: { 'pg-main': {} } })],
  ])('a signed message with %s that names no job is dead-lettered (%s) and counted', async (_name, reason, bodyOf) => {
    const jobId = randomUUID();
    const before = await rejected(worker, reason);
    const body = Buffer.from(JSON.stringify(bodyOf(jobId)));
    publishJob(world, body, signedHeaders(body, jobId, world.workQueue));
    const dead = await deadLetterOf(jobId);
    expect(dead.content.equals(body)).toBe(true);
    await until(async () => ((await rejected(worker, reason)) > before ? true : undefined), 10_000, 'the metric');
  });

  it('a signed message for a job that does not exist is dead-lettered (FET-0067)', async () => {
    const jobId = randomUUID();
    const body = jobBody(jobId, MAPPED);
    publishJob(world, body, signedHeaders(body, jobId, world.workQueue));
    await deadLetterOf(jobId);
    expect(await rejected(worker, 'job_not_found')).toBeGreaterThanOrEqual(1);
  });
});
