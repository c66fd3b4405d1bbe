import { randomBytes } from 'node:crypto';
import type { CommandBus } from '@nestjs/cqrs';
import { envelopeHeaders, KeyRing } from '@fetcher/platform';
import type { ConsumeMessage } from 'amqplib';
import { Registry } from 'prom-client';
import { WorkerMetrics } from '../metrics/worker-metrics';
import { FakeClock } from '../testing/fake-clock';
import { FailPendingJobCommand } from './commands/fail-pending-job.command';
import { RunJobCommand } from './commands/run-job.command';
import { JobRequestedController } from './job-requested.controller';
import type { JobOutcome } from './delivery-outcome';
import type { JobSettings } from './job-settings';
import { MessageVerifier } from './message-verifier';
import { TenantManagerError, TenantResourceError } from '@fetcher/platform';
import { TenantScope } from '../tenancy/tenant-scope';

const JOB = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

describe(JobRequestedController.name, () => {
  const setup = (outcome: JobOutcome | Error = { kind: 'handled' }, scope: TenantScope | null = null) => {
    const ring = KeyRing.create({ current: { version: '1', key: randomBytes(32) } });
    const clock = new FakeClock('2026-03-01T10:00:00Z');
    const sleeps: number[] = [];
    const verifier = new MessageVerifier({ ring } as JobSettings, { allowLegacyBodySignature: false }, clock);
    const retry = { maxRetries: 3, baseDelayMs: 1_000, maxDelayMs: 30_000, sleep: (ms: number) => { sleeps.push(ms); return Promise.resolve(); } };
    const executed: unknown[] = [];
    const commands = {
      execute: (command: unknown) => {
        executed.push(command);
        if (command instanceof RunJobCommand && outcome instanceof Error) return Promise.reject(outcome);
        return Promise.resolve(command instanceof RunJobCommand ? outcome : undefined);
      },
    } as unknown as CommandBus;
    const metrics = new WorkerMetrics(new Registry());
    const sut = new JobRequestedController(verifier, commands, metrics, retry, scope);
    const message = (mutate: (h: Record<string, unknown>) => Record<string, unknown> = (h) => h, now = clock.now(), tenantId = ''): ConsumeMessage => {
      const body = Buffer.from(`{"jobId":"${JOB}","mappedFields":{"a":{"t":["f"]}},"metadata":{}}`);
      const headers = mutate(envelopeHeaders({ key: ring.current().internalHmac, tenantId, exchange: '', routingKey: 'q', body, jobId: JOB, now }));
      return { content: body, fields: { exchange: '', routingKey: 'q' }, properties: { headers } } as unknown as ConsumeMessage;
    };
    const rejected = async (reason: string) => (await metrics.messagesRejected.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;
    const retried = async () => (await metrics.messagesRetried.get()).values.reduce((sum, v) => sum + v.value, 0);
    return { sut, message, executed, rejected, retried, clock, sleeps };
  };

  it('runs a verified message and acks as the command says', async () => {
    const { sut, message, executed } = setup();
    expect(await sut.onJobRequested(message())).toEqual({ kind: 'handled' });
    expect(executed[0]).toBeInstanceOf(RunJobCommand);
    expect((executed[0] as RunJobCommand).delivery).toMatchObject({ tenantHeader: '' });
  });

  it('dead-letters and counts what the command says to', async () => {
    const { sut, message, rejected } = setup({ kind: 'refused', reason: 'engine_unavailable' });
    expect(await sut.onJobRequested(message())).toEqual({ kind: 'refused', reason: 'engine_unavailable' });
    expect(await rejected('engine_unavailable')).toBe(1);
  });

  it('retries a delivery whose infrastructure failed before the job was settled, after a growing delay', async () => {
    const { sut, message, rejected, retried, sleeps } = setup(new Error('mongo down'));
    expect(await sut.onJobRequested(message())).toEqual({ kind: 'try-again' });
    expect(await sut.onJobRequested(message((h) => ({ ...h, 'x-retry-count': 2 })))).toEqual({ kind: 'try-again' });
    expect(sleeps).toEqual([1_000, 4_000]);
    expect(await retried()).toBe(2);
    expect(await rejected('internal')).toBe(0);
  });

  it('after the last retry, fails the still-pending job and dead-letters the delivery as internal', async () => {
    const { sut, message, executed, rejected, sleeps } = setup(new Error('mongo down'));
    expect(await sut.onJobRequested(message((h) => ({ ...h, 'x-retry-count': 3 })))).toEqual({ kind: 'refused', reason: 'internal' });
    expect(sleeps).toEqual([]);
    expect(executed[1]).toBeInstanceOf(FailPendingJobCommand);
    expect(executed[1]).toMatchObject({ jobId: JOB, error: 'process failed: infrastructure unavailable after 4 delivery attempts' });
    expect(await rejected('internal')).toBe(1);
  });

  it('does not retry a delivery whose retry count is not a count', async () => {
    const { sut, message, rejected } = setup(new Error('mongo down'));
    expect(await sut.onJobRequested(message((h) => ({ ...h, 'x-retry-count': -5 })))).toEqual({ kind: 'refused', reason: 'internal' });
    expect(await rejected('internal')).toBe(1);
  });

  it('dead-letters a forged message without running anything', async () => {
    const { sut, message, executed, rejected } = setup();
    expect(await sut.onJobRequested(message((h) => ({ ...h, 'x-message-signature': '00' })))).toEqual({ kind: 'refused', reason: 'mismatch' });
    expect(executed).toEqual([]);
    expect(await rejected('mismatch')).toBe(1);
  });

  it('fails the job of an authentic expired message, then dead-letters it', async () => {
    const { sut, message, executed, clock, rejected } = setup();
    expect(await sut.onJobRequested(message((h) => h, new Date(clock.now().getTime() - 301_000)))).toEqual({ kind: 'refused', reason: 'expired' });
    expect(executed).toHaveLength(1);
    expect(executed[0]).toBeInstanceOf(FailPendingJobCommand);
    expect(executed[0]).toMatchObject({ jobId: JOB, error: 'message expired before processing' });
    expect(await rejected('expired')).toBe(1);
  });

  it('fails the job of an authentic message signed in the future (clock skew), then dead-letters it', async () => {
    const { sut, message, executed, clock, rejected } = setup();
    expect(await sut.onJobRequested(message((h) => h, new Date(clock.now().getTime() + 120_000)))).toEqual({ kind: 'refused', reason: 'future_timestamp' });
    expect(executed).toHaveLength(1);
    expect(executed[0]).toBeInstanceOf(FailPendingJobCommand);
    expect(executed[0]).toMatchObject({ jobId: JOB, error: 'message timestamp is in the future: the clocks of the Manager and the Worker differ by more than 30 s' });
    expect(await rejected('future_timestamp')).toBe(1);
  });

  it('leaves the job alone when a future-dated message is not authentic', async () => {
    const { sut, message, executed, clock } = setup();
    const forged = message((h) => ({ ...h, 'x-message-signature': 'ab'.repeat(32) }), new Date(clock.now().getTime() + 120_000));
    expect(await sut.onJobRequested(forged)).toMatchObject({ kind: 'refused' });
    expect(executed).toEqual([]);
  });

  describe('in multi-tenant mode (a delivery within its vhost tenant\'s scope)', () => {
    it('runs a message signed for the vhost\'s tenant, with that tenant', async () => {
      const scope = new TenantScope();
      const { sut, message, executed } = setup({ kind: 'handled' }, scope);
      expect(await scope.run('acme', () => sut.onJobRequested(message((h) => h, undefined, 'acme')))).toEqual({ kind: 'handled' });
      expect((executed[0] as RunJobCommand).delivery).toMatchObject({ tenantHeader: 'acme' });
    });

    it('dead-letters an authentic message signed for another tenant, or for none, without running it', async () => {
      const scope = new TenantScope();
      const { sut, message, executed, rejected } = setup({ kind: 'handled' }, scope);
      expect(await scope.run('beta', () => sut.onJobRequested(message((h) => h, undefined, 'acme')))).toEqual({ kind: 'refused', reason: 'tenant_mismatch' });
      expect(await scope.run('beta', () => sut.onJobRequested(message()))).toEqual({ kind: 'refused', reason: 'tenant_mismatch' });
      expect(executed).toEqual([]);
      expect(await rejected('tenant_mismatch')).toBe(2);
    });

    it('drops the message of a tenant that cannot be served, and retries one whose resources are only unreachable', async () => {
      const scope = new TenantScope();
      const gone = setup(new TenantManagerError('tenant_suspended', { tenantId: 'acme' }), scope);
      expect(await scope.run('acme', () => gone.sut.onJobRequested(gone.message((h) => h, undefined, 'acme')))).toEqual({ kind: 'handled' });
      expect(await gone.rejected('tenant_unavailable')).toBe(1);
      const unconfigured = setup(new TenantResourceError('mongodb_not_configured', 'acme'), scope);
      expect(await scope.run('acme', () => unconfigured.sut.onJobRequested(unconfigured.message((h) => h, undefined, 'acme')))).toEqual({ kind: 'handled' });
      const down = setup(new TenantResourceError('unreachable', 'acme'), scope);
      expect(await scope.run('acme', () => down.sut.onJobRequested(down.message((h) => h, undefined, 'acme')))).toEqual({ kind: 'try-again' });
    });
  });
});
