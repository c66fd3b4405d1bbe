import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { buildJobCancelMessage, buildJobMessage, JOB_CONTROL_EXCHANGE, JOB_CONTROL_ROUTING_KEY } from '@fetcher/contracts';
import type { TenantContext } from '@fetcher/engine';
import {
  envelopeHeaders, injectTraceHeaders, SpanKind, type Telemetry, type TenantAmqp, type TenantPool, traced,
} from '@fetcher/platform';
import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { Job } from '../../jobs/job';
import type { Clock } from '../../ports/clock.port';
import type { JobControlPublisher } from '../../ports/job-control-publisher.port';
import type { JobPublisher } from '../../ports/job-publisher.port';
import { resolutionError } from '../tenancy/tenant-databases';
import { PublishError } from './job-publisher.amqp';

export interface TenantAmqpJobPublisherSettings {
  /** The routing key on the default exchange: the work queue, the same name in every tenant vhost. */
  readonly workQueue: string;
  /** The internal HMAC key of the current key ring entry. */
  readonly signingKey: Buffer;
  readonly confirmTimeoutMs?: number;
  readonly telemetry?: Telemetry | null;
}

const ATTEMPTS = 2;

/**
 * Multi-tenant mode's job publisher: each job goes to its tenant's own vhost (the tenant-level
 * `messaging.rabbitmq` of its `fetcher` config, one pooled connection per tenant), on a fresh confirm
 * channel per publish, with `X-Tenant-ID` set and bound into the HMAC, so a message moved to another
 * tenant's vhost, or relabelled, fails the Worker's check. Persistent, mandatory and confirmed as in
 * single-tenant mode; a return (the tenant's work queue missing), a nack or a timeout rejects. The
 * work queue is never declared here: it belongs to the tenant's provisioning. A publish with no
 * tenant is refused: the default vhost is never used.
 */
export class TenantAmqpJobPublisher implements JobPublisher, JobControlPublisher, OnApplicationShutdown {
  private readonly logger = new Logger(TenantAmqpJobPublisher.name);

  constructor(
    private readonly pool: TenantPool<TenantAmqp>,
    private readonly settings: TenantAmqpJobPublisherSettings,
    private readonly clock: Clock,
  ) {}

  async publishExtractionRequested(tenant: TenantContext, job: Job, requestId: string): Promise<void> {
    const queue = this.settings.workQueue;
    const body = buildJobMessage(job);
    await traced(this.settings.telemetry, `publish ${queue}`, {
      kind: SpanKind.PRODUCER,
      attributes: {
        'messaging.system': 'rabbitmq', 'messaging.destination.name': queue, 'messaging.operation.type': 'send', 'fetcher.job.id': job.id,
        'fetcher.tenant.id': tenant.tenantId,
      },
    }, () => this.#publish(tenant, job.id, (channel) => {
      const headers = envelopeHeaders({
        key: this.settings.signingKey,
        tenantId: tenant.tenantId,
        exchange: '',
        routingKey: queue,
        body,
        jobId: job.id,
        now: this.clock.now(),
        requestId,
        extra: injectTraceHeaders({}),
      });
      channel.publish('', queue, body, { persistent: true, mandatory: true, contentType: 'application/json', headers });
      return headers['x-message-signature'] as string;
    }));
  }

  /** A signed `job.cancel` on the control exchange of the tenant's vhost (not mandatory: a job's stored cancel request reaches its Worker anyway). */
  async publishCancel(tenant: TenantContext, jobId: string, requestedAt: Date): Promise<void> {
    const body = buildJobCancelMessage(jobId, requestedAt);
    await this.#publish(tenant, jobId, (channel) => {
      const headers = envelopeHeaders({
        key: this.settings.signingKey,
        tenantId: tenant.tenantId,
        exchange: JOB_CONTROL_EXCHANGE,
        routingKey: JOB_CONTROL_ROUTING_KEY,
        body,
        jobId,
        now: this.clock.now(),
        requestId: tenant.requestId ?? '',
        extra: {},
      });
      channel.publish(JOB_CONTROL_EXCHANGE, JOB_CONTROL_ROUTING_KEY, body, { persistent: true, contentType: 'application/json', headers });
      return headers['x-message-signature'] as string;
    }, async (channel) => {
      await channel.assertExchange(JOB_CONTROL_EXCHANGE, 'fanout', { durable: true });
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.closeAll();
  }

  /** Leases the tenant's connection and publishes on a fresh confirm channel, twice at most. */
  async #publish(
    tenant: TenantContext, jobId: string, send: (channel: ConfirmChannel) => string, prepare?: (channel: ConfirmChannel) => Promise<void>,
  ): Promise<void> {
    if (tenant.tenantId === '') throw new PublishError('no_tenant');
    let lease;
    try {
      lease = await this.pool.acquire(tenant.tenantId);
    } catch (error) {
      throw resolutionError(tenant.tenantId, error);
    }
    try {
      let lastError: unknown;
      for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
        try {
          await this.#once(lease.resource, send, prepare);
          return;
        } catch (error) {
          lastError = error;
          this.logger.warn(`publish attempt ${attempt} for job ${jobId} of tenant ${tenant.tenantId} failed (${error instanceof PublishError ? error.reason : 'error'})`);
        }
      }
      throw lastError;
    } finally {
      lease.release();
    }
  }

  async #once(amqp: TenantAmqp, send: (channel: ConfirmChannel) => string, prepare?: (channel: ConfirmChannel) => Promise<void>): Promise<void> {
    const model = amqp.connection.connection;
    if (!model) throw new PublishError('not_connected');
    let channel: ConfirmChannel;
    try {
      channel = await model.createConfirmChannel();
    } catch {
      throw new PublishError('channel_failed');
    }
    const returned = new Set<string>();
    channel.on('error', (error: Error) => this.logger.warn(`RabbitMQ channel error (${error.name})`));
    channel.on('return', (message: ConsumeMessage) => {
      const signature: unknown = message.properties.headers?.['x-message-signature'];
      if (typeof signature === 'string') returned.add(signature);
    });
    try {
      if (prepare) await prepare(channel);
      let signature = '';
      try {
        signature = send(channel);
      } catch {
        throw new PublishError('channel_failed');
      }
      // The broker sends basic.return before the ack of the same message.
      await withTimeout(channel.waitForConfirms().then(() => undefined, () => Promise.reject(new PublishError('nacked'))), this.settings.confirmTimeoutMs ?? 5_000);
      if (returned.has(signature)) throw new PublishError('unroutable');
    } finally {
      await channel.close().catch(() => undefined);
    }
  }
}

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new PublishError('confirm_timeout')), ms);
    promise.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new PublishError('nacked'));
      },
    );
  });
}
