import { randomUUID } from 'node:crypto';
import { connect, type Channel } from 'amqplib';
import { Redis } from 'ioredis';
import type { ConsumeMessage } from 'amqplib';
import { buildJobCancelMessage, JOB_CONTROL_EXCHANGE } from '@fetcher/contracts';
import { envelopeHeaders, TenantManagerClient, verifyEnvelope, type TenantEventOutcome, type TenantLifecycleEvent } from '@fetcher/platform';
import { createTenantVhosts, type TenantVhost, type TenantVhosts } from '@fetcher/platform/testing';
import { startTenantManagerTestServer, type TenantManagerTestServer, type TenantRecord } from '@fetcher/tenant-manager-test-server';
import { JOB_REQUESTED } from '../adapters/amqp/job-queue.transport';
import { HANDLED } from '../jobs/delivery-outcome';
import { JobCancelRegistry, JobCanceled } from '../jobs/cancel/job-cancel-registry';
import { WorkerMetrics } from '../metrics/worker-metrics';
import { Registry } from 'prom-client';
import type { TenantConsumers } from './tenant-consumers';
import type { TenantAmqp } from '@fetcher/platform';
import { wireTenantIntake } from './tenant-intake';
import { listening, TenantJobQueues } from './tenant-job-queues';
import { TenantResources } from './tenant-resources';
import { TenantScope } from './tenant-scope';

const WORK_QUEUE = 'fetcher.extract-external-data.queue';
const CHANNEL = 'tenant-events:staging:';
const KEY = Buffer.alloc(32, 5);

/** Resolves the next time `predicate` holds for a value pushed to `push`. */
class Waiters<T> {
  readonly seen: T[] = [];
  readonly #waiting: { predicate: (value: T) => boolean; resolve: (value: T) => void }[] = [];

  push(value: T): void {
    this.seen.push(value);
    for (const w of [...this.#waiting]) {
      if (!w.predicate(value)) continue;
      this.#waiting.splice(this.#waiting.indexOf(w), 1);
      w.resolve(value);
    }
  }

  next(predicate: (value: T) => boolean): Promise<T> {
    return new Promise((resolve) => this.#waiting.push({ predicate, resolve }));
  }
}

describe('per-tenant consumers on real vhosts, driven by the tenant-manager and Redis tenant events', () => {
  const suffix = randomUUID().slice(0, 6);
  const acme = `acme${suffix}`;
  const beta = `beta${suffix}`;
  const broken = `broken${suffix}`;
  const gamma = `gamma${suffix}`;
  const apiKey = `key-${randomUUID()}`;
  let vhosts: TenantVhosts;
  let tm: TenantManagerTestServer;
  let resources: TenantResources;
  let intake: TenantJobQueues;
  let consumers: TenantConsumers<TenantAmqp>;
  let publisher: Redis;
  const scope = new TenantScope();
  const cancels = new JobCancelRegistry(scope);
  const workerMetrics = new WorkerMetrics(new Registry());
  const deliveries = new Waiters<{ tenant: string | undefined; body: string }>();
  const dispatched = new Waiters<{ tenantId: string; type: string; outcome: TenantEventOutcome }>();
  const retries: (() => void)[] = [];

  const record = (id: string, v: TenantVhost, status: TenantRecord['status'] = 'active'): TenantRecord => ({
    name: id, status,
    services: { fetcher: { id, tenantSlug: id, messaging: { rabbitmq: { host: '127.0.0.1', port: 5672, vhost: v.vhost, username: v.username, password: v.password } } } },
  });

  /** A channel on the tenant's vhost as guest, to publish into it and look at its queue. */
  const onVhost = async <T>(tenantId: string, work: (ch: Channel) => Promise<T>): Promise<T> => {
    const conn = await connect(`amqp://guest:guest@127.0.0.1:5672/${encodeURIComponent(vhosts.byTenant(tenantId).vhost)}`);
    try {
      const ch = await conn.createConfirmChannel();
      const result = await work(ch);
      await ch.close();
      return result;
    } finally {
      await conn.close();
    }
  };
  const send = (tenantId: string, body: string) => onVhost(tenantId, async (ch) => {
    ch.sendToQueue(WORK_QUEUE, Buffer.from(body));
    await (ch as unknown as { waitForConfirms(): Promise<void> }).waitForConfirms();
  });
  /**
   * A cancel for `jobId` signed for `signedFor`, published (mandatory) on the control exchange of
   * `vhostOf`'s vhost; resolves with whether the broker returned it, i.e. no queue was bound there.
   */
  const sendCancel = (vhostOf: string, signedFor: string, jobId: string) => onVhost(vhostOf, async (ch) => {
    let returned = false;
    ch.on('return', () => (returned = true));
    const body = buildJobCancelMessage(jobId, new Date('2026-12-06T10:00:00Z'));
    const headers = envelopeHeaders({ key: KEY, tenantId: signedFor, exchange: JOB_CONTROL_EXCHANGE, routingKey: '', body, jobId, now: new Date() });
    ch.publish(JOB_CONTROL_EXCHANGE, '', body, { headers, mandatory: true });
    // The broker sends basic.return before the confirm of the same message.
    await (ch as unknown as { waitForConfirms(): Promise<void> }).waitForConfirms();
    return returned;
  });
  const aborted = (signal: AbortSignal) =>
    signal.aborted ? Promise.resolve<unknown>(signal.reason) : new Promise<unknown>((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));
  const rejectedControl = async () => Object.fromEntries((await workerMetrics.controlRejected.get()).values.map((v) => [v.labels.reason, v.value]));
  const queueState = (tenantId: string) => onVhost(tenantId, (ch) => ch.checkQueue(WORK_QUEUE));
  const publishEvent = (tenantId: string, type: string, payload?: Record<string, unknown>) =>
    publisher.publish(CHANNEL, JSON.stringify({ event_id: randomUUID(), event_type: type, tenant_id: tenantId, timestamp: new Date().toISOString(), ...(payload ? { payload } : {}) }));

  beforeAll(async () => {
    vhosts = createTenantVhosts([acme, beta, gamma]);
    tm = await startTenantManagerTestServer({
      tenants: {
        apiKey,
        tenants: {
          [acme]: record(acme, vhosts.byTenant(acme)),
          [beta]: record(beta, vhosts.byTenant(beta)),
          // Beta's vhost with acme's password: the broker refuses it, and only this tenant suffers.
          [broken]: record(broken, { ...vhosts.byTenant(beta), password: vhosts.byTenant(acme).password }),
        },
      },
    });
    resources = new TenantResources({
      client: new TenantManagerClient({ url: tm.url, apiKey, allowInsecureHttp: true }),
      maxTenants: 10, idleTimeoutMs: 60_000, defaultAmqpTls: false, sweepIntervalMs: 0,
      onConfigLoaded: (tenantId) => intake.lazyStart(tenantId),
    });
    intake = new TenantJobQueues(scope);
    intake.addHandler(JOB_REQUESTED, (msg: ConsumeMessage) => {
      deliveries.push({ tenant: scope.current(), body: msg.content.toString() });
      return Promise.resolve(HANDLED) as never;
    }, true);
    ({ consumers } = wireTenantIntake({
      resources, intake, workQueue: WORK_QUEUE, telemetry: null,
      redis: { host: '127.0.0.1', port: 6379 }, environment: 'staging', reconcileIntervalMs: 3_600_000,
      logger: { log: () => undefined, warn: () => undefined },
      onDispatched: (event: TenantLifecycleEvent, outcome) => dispatched.push({ tenantId: event.tenantId, type: event.eventType, outcome }),
      // Retries are run by the test, never on a timer.
      retry: { schedule: (run) => (retries.push(run), { cancel: () => undefined }) },
      control: {
        exchange: JOB_CONTROL_EXCHANGE,
        verify: (msg) => verifyEnvelope({ keys: [KEY], headers: msg.properties.headers ?? {}, body: msg.content, exchange: msg.fields.exchange, routingKey: msg.fields.routingKey, now: new Date() }),
        registry: cancels, metrics: workerMetrics, scope,
      },
    }));
    publisher = new Redis({ host: '127.0.0.1', port: 6379, lazyConnect: true });
    await publisher.connect();
    await listening(intake);
  });

  afterAll(async () => {
    await intake?.close();
    await resources?.close();
    publisher?.disconnect();
    await tm?.close();
    vhosts?.cleanup();
  });

  it('starts a consumer per active tenant at the initial sync; a tenant whose vhost refuses it is retried alone', async () => {
    expect(consumers.isConsuming(acme)).toBe(true);
    expect(consumers.isConsuming(beta)).toBe(true);
    expect(consumers.isConsuming(broken)).toBe(false);
    expect(consumers.ownsTenant(broken)).toBe(true); // known, and being retried
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect((await queueState(acme)).consumerCount).toBe(1);

    // Each delivery runs within the scope of the vhost's tenant.
    const fromAcme = deliveries.next((d) => d.body === `a-${suffix}`);
    const fromBeta = deliveries.next((d) => d.body === `b-${suffix}`);
    await send(acme, `a-${suffix}`);
    await send(beta, `b-${suffix}`);
    expect(await fromAcme).toEqual({ tenant: acme, body: `a-${suffix}` });
    expect(await fromBeta).toEqual({ tenant: beta, body: `b-${suffix}` });
  });

  it('binds each tenant\'s job-control consumer on its vhost; a cancel reaches only runs of that tenant', async () => {
    const jobId = randomUUID();
    // The same job id running for both tenants (as a job of each would, in their scopes).
    const runOfAcme = scope.run(acme, () => cancels.watch(jobId));
    const runOfBeta = scope.run(beta, () => cancels.watch(jobId));
    try {
      // Into beta's vhost: one signed for acme (moved there), then one signed for beta. One queue
      // delivers in order, so once beta's run stopped, the first had been handled, and dropped.
      expect(await sendCancel(beta, acme, jobId)).toBe(false);
      expect(await sendCancel(beta, beta, jobId)).toBe(false);
      expect(await aborted(runOfBeta.signal)).toBeInstanceOf(JobCanceled);
      expect(runOfAcme.signal.aborted).toBe(false);
      expect(await rejectedControl()).toEqual({ tenant_mismatch: 1 });

      expect(await sendCancel(acme, acme, jobId)).toBe(false);
      expect(await aborted(runOfAcme.signal)).toBeInstanceOf(JobCanceled);
    } finally {
      runOfAcme.release();
      runOfBeta.release();
    }
  });

  it('a tenant.suspended event stops that tenant\'s consumer and closes its connection, while another tenant keeps consuming', async () => {
    tm.putTenant(acme, record(acme, vhosts.byTenant(acme), 'suspended'));
    const removed = dispatched.next((d) => d.tenantId === acme && d.type === 'tenant.suspended');
    await publishEvent(acme, 'tenant.suspended');
    expect(await removed).toMatchObject({ outcome: 'removed' });

    expect(consumers.isConsuming(acme)).toBe(false);
    expect(consumers.ownsTenant(acme)).toBe(false);
    expect(resources.amqp.has(acme)).toBe(false);
    expect((await queueState(acme)).consumerCount).toBe(0);
    // Its control consumer stopped with it: nothing is bound to the control exchange of its vhost any more.
    expect(await sendCancel(acme, acme, randomUUID())).toBe(true);
    expect(await sendCancel(beta, beta, randomUUID())).toBe(false);
    // A job for the suspended tenant waits in its queue; nothing here takes it.
    await send(acme, `a2-${suffix}`);
    expect((await queueState(acme)).messageCount).toBe(1);

    const fromBeta = deliveries.next((d) => d.body === `b2-${suffix}`);
    await send(beta, `b2-${suffix}`);
    expect(await fromBeta).toEqual({ tenant: beta, body: `b2-${suffix}` });
    expect(deliveries.seen.some((d) => d.body === `a2-${suffix}`)).toBe(false);
  });

  it('starts a tenant associated with the service by an event, and ignores events for other services', async () => {
    tm.putTenant(gamma, record(gamma, vhosts.byTenant(gamma)));
    const ignored = dispatched.next((d) => d.tenantId === gamma && d.type === 'tenant.service.associated');
    await publishEvent(gamma, 'tenant.service.associated', { service_name: 'ledger' });
    expect(await ignored).toMatchObject({ outcome: 'ignored:other-service' });
    expect(consumers.isConsuming(gamma)).toBe(false);

    const added = dispatched.next((d) => d.tenantId === gamma && d.type === 'tenant.service.associated');
    await publishEvent(gamma, 'tenant.service.associated', { service_name: 'fetcher' });
    expect(await added).toMatchObject({ outcome: 'added' });
    expect(consumers.isConsuming(gamma)).toBe(true);
    const fromGamma = deliveries.next((d) => d.body === `g-${suffix}`);
    await send(gamma, `g-${suffix}`);
    expect(await fromGamma).toEqual({ tenant: gamma, body: `g-${suffix}` });
  });

  it('starts a tenant lazily when its config is first fetched (a cache miss)', async () => {
    await consumers.removeTenant(gamma);
    expect(consumers.isConsuming(gamma)).toBe(false);
    // Anything that needs the tenant's database or vhost fetches its config through the pools.
    const lease = await resources.amqp.acquire(gamma);
    lease.release();
    await consumers.settled(gamma);
    expect(consumers.isConsuming(gamma)).toBe(true);
  });
});
