import { randomUUID } from 'node:crypto';
import { buildJobCancelMessage, CANCEL_REQUESTED_AT_FIELD, JOB_CONTROL_EXCHANGE } from '@fetcher/contracts';
import { envelopeHeaders } from '@fetcher/platform';
import { type ChannelModel, connect, type ConfirmChannel } from 'amqplib';
import { Client } from 'pg';
import { header, type MultiTenantWorld, startMultiTenantWorld, uuidBinary } from '../testing/multi-tenant-world';

/** Polls `read` every 50 ms until it gives a value (a state outside the process: PostgreSQL's lock waits). */
async function eventually<T>(read: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A cancel reaching a running job through its tenant's control exchange, on the whole Worker in
 * multi-tenant mode. The jobs read a table another session holds locked, so they stay `processing`,
 * waiting in PostgreSQL, until canceled. The lease TTL is an hour (renewal every 20 minutes), and the
 * cancel is never written to the job document: only the control message can stop them here.
 */
describe('the Worker in multi-tenant mode: cancels from each tenant\'s control exchange', () => {
  const suffix = randomUUID().slice(0, 6);
  const acme = `acme${suffix}`;
  const beta = `beta${suffix}`;
  let w: MultiTenantWorld;
  let locker: Client;
  let admin: Client;
  let locked = false;
  const brokers: ChannelModel[] = [];
  const channels = new Map<string, ConfirmChannel>();

  beforeAll(async () => {
    w = await startMultiTenantWorld([acme, beta], ['locked'], { JOB_LEASE_TTL_SEC: '3600' });
    for (const tenantId of [acme, beta]) {
      const { vhost } = (w.record(tenantId).services.fetcher as { messaging: { rabbitmq: { vhost: string } } }).messaging.rabbitmq;
      const broker = await connect(`amqp://guest:guest@127.0.0.1:5672/${encodeURIComponent(vhost)}`);
      brokers.push(broker);
      channels.set(tenantId, await broker.createConfirmChannel());
    }
    admin = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'postgres' });
    await admin.connect();
    locker = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'postgres' });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE ${w.schema}.locked IN ACCESS EXCLUSIVE MODE`);
    locked = true;
  });

  afterAll(async () => {
    if (locked) await locker.query('ROLLBACK').catch(() => undefined);
    await locker?.end();
    await admin?.end();
    for (const broker of brokers) await broker.close().catch(() => undefined);
    await w?.close();
  });

  /** A signed `job.cancel` for `jobId`, signed for `signedFor`, on the control exchange of `vhostOf`'s vhost. */
  const cancel = async (vhostOf: string, signedFor: string, jobId: string) => {
    const ch = channels.get(vhostOf)!;
    const body = buildJobCancelMessage(jobId, new Date());
    const headers = envelopeHeaders({ key: w.config.ring.current().internalHmac, tenantId: signedFor, exchange: JOB_CONTROL_EXCHANGE, routingKey: '', body, jobId, now: new Date() });
    ch.publish(JOB_CONTROL_EXCHANGE, '', body, { headers, contentType: 'application/json' });
    await ch.waitForConfirms();
  };
  const jobDoc = (tenantId: string, jobId: string) => w.db(tenantId).collection('job').findOne({ _id: uuidBinary(jobId) } as never);
  /** Resolves once `count` extraction queries wait on the locked table. */
  const waitingOnLock = (count: number) => eventually(async () => {
    const waiting = await admin.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%${w.schema}%locked%'`);
    return (waiting.rowCount ?? 0) >= count ? true : undefined;
  });

  it('stops a running job of tenant A on a cancel in A\'s vhost; a cancel for it in B\'s vhost (signed for B, or for A and moved) leaves it running', async () => {
    const jobA = randomUUID();
    const jobB = randomUUID();
    w.publish(acme, acme, jobA, await w.seed(acme, jobA, 'locked'));
    w.publish(beta, beta, jobB, await w.seed(beta, jobB, 'locked'));
    await waitingOnLock(2);
    expect(await jobDoc(acme, jobA)).toMatchObject({ status: 'processing' });

    // Into beta's vhost: acme's job id signed for beta, the same signed for acme (moved there), then
    // beta's own job. Beta's control queue delivers in order: once beta's job is canceled, the two
    // before it have been handled.
    await cancel(beta, beta, jobA);
    await cancel(beta, acme, jobA);
    await cancel(beta, beta, jobB);
    const canceledB = await w.events.get(beta)!.next((m) => header(m, 'ce-subject') === jobB);
    expect(header(canceledB, 'ce-type')).toBe('studio.lerian.job.canceled');
    expect(await jobDoc(beta, jobB)).toMatchObject({ status: 'canceled' });

    // Acme's job still runs: still processing, still waiting on the table, no event.
    expect(await jobDoc(acme, jobA)).toMatchObject({ status: 'processing' });
    await waitingOnLock(1);
    expect(w.events.get(acme)!.seen.some((m) => header(m, 'ce-subject') === jobA)).toBe(false);
    const metrics = await (await fetch(`http://127.0.0.1:${w.port}/metrics`)).text();
    expect(metrics).toMatch(/fetcher_worker_control_messages_rejected_total\{reason="tenant_mismatch"\} 1/);

    // Its own tenant's cancel stops it, with the cancel in no document the lease renewal could read.
    await cancel(acme, acme, jobA);
    const canceledA = await w.events.get(acme)!.next((m) => header(m, 'ce-subject') === jobA);
    expect(header(canceledA, 'ce-type')).toBe('studio.lerian.job.canceled');
    const docA = await jobDoc(acme, jobA);
    expect(docA).toMatchObject({ status: 'canceled' });
    expect(docA?.[CANCEL_REQUESTED_AT_FIELD]).toBeUndefined();
    expect((await w.listObjects()).filter((k) => k.includes(jobA) || k.includes(jobB))).toEqual([]);
  });
});
