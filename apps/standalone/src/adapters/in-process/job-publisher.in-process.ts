import type { TenantContext } from '@fetcher/engine';
import { envelopeHeaders } from '@fetcher/platform';
import { buildJobMessage } from '@fetcher/contracts';
import { type Clock, type Job, type JobPublisher } from '@fetcher/manager';
import type { InProcessWorkQueue } from './work-queue';

/**
 * The Manager's publisher onto the in-process work queue: the same body and the same HMAC
 * envelope v1 as the RabbitMQ publisher (default exchange, the work queue as routing key, the
 * internal key), so the Worker verifies it with the code it runs in production.
 */
export class InProcessJobPublisher implements JobPublisher {
  constructor(
    private readonly queue: InProcessWorkQueue,
    private readonly workQueue: string,
    private readonly signingKey: Buffer,
    private readonly clock: Clock,
  ) {}

  async publishExtractionRequested(_tenant: TenantContext, job: Job, requestId: string): Promise<void> {
    const body = buildJobMessage(job);
    const headers = envelopeHeaders({
      key: this.signingKey,
      tenantId: '',
      exchange: '',
      routingKey: this.workQueue,
      body,
      jobId: job.id,
      now: this.clock.now(),
      requestId,
    });
    await this.queue.publish('', this.workQueue, body, headers);
  }
}
