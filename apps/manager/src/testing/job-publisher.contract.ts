import { randomBytes, randomUUID } from 'node:crypto';
import { buildJobMessage } from '@fetcher/contracts';
import { createTenantContext } from '@fetcher/engine';
import { verifyEnvelope } from '@fetcher/platform';
import { v7 as uuidv7 } from 'uuid';
import type { Job } from '../jobs/job';
import type { Clock } from '../ports/clock.port';
import type { JobPublisher } from '../ports/job-publisher.port';

/** What the publisher under test is built with: the work queue's name, the internal HMAC key, the clock it signs with. */
export interface JobPublisherSetup {
  readonly workQueue: string;
  readonly signingKey: Buffer;
  readonly clock: Clock;
}

/** A message as the Worker's consumer gets it from the work queue. */
export interface DeliveredMessage {
  readonly exchange: string;
  readonly routingKey: string;
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, unknown>>;
}

/**
 * A publisher under test and the work queue's view. `delivered()` answers what the queue holds so
 * far, without waiting: a publish that resolved MUST already be there (that is the confirm).
 * `broken()` builds a publisher, with the same settings, whose broker cannot take the message.
 */
export interface JobPublisherUnderTest {
  readonly publisher: JobPublisher;
  delivered(): Promise<readonly DeliveredMessage[]>;
  broken(): JobPublisher | Promise<JobPublisher>;
}

const tenant = createTenantContext('default', 'req-contract');
const at = new Date('2026-11-29T10:00:00.000Z');

function aJob(): Job {
  return {
    id: uuidv7(),
    status: 'pending',
    mappedFields: { 'pg-main': { transactions: ['id', 'amount'] } },
    filters: { 'pg-main': { transactions: { status: { eq: ['completed'] } } } },
    metadata: { source: 'reporter', note: 'ünïcode ✓' },
    requestHash: 'h',
    createdAt: new Date('2026-11-29T09:59:00.123Z'),
    completedAt: null,
    dispatchedAt: null,
    dispatchAttempts: 0,
  };
}

export interface JobPublisherContractOptions {
  /** The publisher serves multi-tenant mode: every message carries the tenant (`default` here) and binds it into the HMAC. */
  readonly multiTenant?: boolean;
}

/**
 * What every JobPublisher must do, run against the RabbitMQ publisher and the standalone in-process
 * one alike: once `publishExtractionRequested` resolves, the work queue holds the job message (the
 * shared body, on the default exchange with the queue as routing key, signed with the internal key
 * so that the Worker's verification accepts it, with the request id); several publishes arrive in
 * order, once each; a broker that cannot take the message makes the publish reject.
 */
export function jobPublisherContract(
  make: (setup: JobPublisherSetup) => JobPublisherUnderTest | Promise<JobPublisherUnderTest>,
  options: JobPublisherContractOptions = {},
): void {
  // Multi-tenant: the request's tenant travels in `X-Tenant-ID` and is bound into the signature; single-tenant: neither.
  const boundTenant = options.multiTenant ? tenant.tenantId : '';
  const signingKey = randomBytes(32);
  let workQueue: string;
  let sut: JobPublisherUnderTest;
  beforeEach(async () => {
    workQueue = `fetcher.contract.jobs.${randomUUID()}`;
    sut = await make({ workQueue, signingKey, clock: { now: () => at } });
  });

  it('has put the signed job message on the work queue once publish resolves', async () => {
    const job = aJob();
    await sut.publisher.publishExtractionRequested(tenant, job, 'req-42');
    const delivered = await sut.delivered();
    expect(delivered).toHaveLength(1);
    const [message] = delivered;
    expect(message).toMatchObject({ exchange: '', routingKey: workQueue });
    expect(message?.body.equals(buildJobMessage(job))).toBe(true);
    expect(message?.headers).toMatchObject({ jobId: job.id, 'X-Request-Id': 'req-42', 'x-retry-count': 0, t: String(at.getTime() / 1000), 'signature-version': 'v1' });
    const verified = verifyEnvelope({ keys: [signingKey], headers: message?.headers, body: message.body, exchange: message.exchange, routingKey: message.routingKey, now: at });
    expect(verified).toEqual({ ok: true, tenantId: boundTenant, jobId: job.id, t: at.getTime() / 1000, legacy: false });
    if (options.multiTenant) {
      expect(message?.headers['X-Tenant-ID']).toBe(boundTenant);
      // The tenant is signed: the same message claiming another tenant does not verify.
      const forged = { ...message?.headers, 'X-Tenant-ID': 'someone-else' };
      expect(verifyEnvelope({ keys: [signingKey], headers: forged, body: message.body, exchange: '', routingKey: workQueue, now: at })).toMatchObject({ ok: false });
    } else {
      expect(message?.headers).not.toHaveProperty('X-Tenant-ID');
    }
    // Another key does not verify it: the publisher signs with the key it was given.
    expect(verifyEnvelope({ keys: [randomBytes(32)], headers: message?.headers, body: message.body, exchange: '', routingKey: workQueue, now: at })).toMatchObject({ ok: false });
  });

  it('puts several jobs on the queue in publish order, once each', async () => {
    const jobs = [aJob(), aJob(), aJob()];
    for (const [i, job] of jobs.entries()) await sut.publisher.publishExtractionRequested(tenant, job, `req-${i}`);
    const delivered = await sut.delivered();
    expect(delivered.map((m) => [m.headers.jobId, m.headers['X-Request-Id']])).toEqual(jobs.map((job, i) => [job.id, `req-${i}`]));
  });

  it('rejects when the broker cannot take the message, and puts nothing on the queue', async () => {
    const broken = await sut.broken();
    await expect(broken.publishExtractionRequested(tenant, aJob(), 'req-lost')).rejects.toHaveProperty('message');
    expect(await sut.delivered()).toEqual([]);
  });
}
