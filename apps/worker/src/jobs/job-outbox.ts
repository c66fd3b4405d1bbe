import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { CLOCK, type Clock } from '../ports/clock.port';
import { EVENT_PUBLISHER, type EventPublisher } from '../ports/event-publisher.port';
import { JOB_STORE, type JobStore, type TerminalStatus } from '../ports/job-store.port';
import { TENANT_SCOPE, type TenantScope } from '../tenancy/tenant-scope';
import { jobEvent } from './job-events';
import { JOB_SETTINGS, type JobSettings } from './job-settings';

/**
 * Sends a job's terminal event after the terminal write stored it (the job document is the outbox),
 * then drops the marker. A failed publish leaves the marker for the repairer; a failed clear only
 * means the event may go out once more, with the same id.
 */
@Injectable()
export class JobOutbox {
  readonly #log = new Logger(JobOutbox.name);

  constructor(
    @Inject(JOB_STORE) private readonly jobs: JobStore,
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(JOB_SETTINGS) private readonly settings: JobSettings,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() @Inject(TENANT_SCOPE) private readonly scope: TenantScope | null = null,
  ) {}

  /** Rejects when the broker did not confirm the event. */
  async emit(jobId: string, status: TerminalStatus, payload: string, requestId?: string): Promise<void> {
    // Multi-tenant: the event names its tenant and binds it into the signature, on the tenant's vhost.
    const tenantId = this.scope?.current();
    const event = jobEvent(jobId, status, payload, {
      exchange: this.settings.eventsExchange,
      source: this.settings.eventSource,
      key: this.settings.ring.current().externalHmac,
      signedTenant: tenantId ?? '',
      eventTenant: tenantId ?? 'single-tenant',
      now: this.clock.now(),
      ...(requestId ? { requestId } : {}),
    });
    await this.publisher.publish(event);
    try {
      await this.jobs.clearEventMarker(jobId);
    } catch {
      this.#log.warn(`job ${jobId}: event sent but its marker was not cleared; it may be sent again with the same id`);
    }
  }
}
