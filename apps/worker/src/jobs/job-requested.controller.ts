import { Controller, Inject, Logger, Optional } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { EventPattern, Payload } from '@nestjs/microservices';
import { jobIdOfBody, TenantManagerError, TenantResourceError } from '@fetcher/platform';
import type { ConsumeMessage } from 'amqplib';
import { v7 as uuidv7 } from 'uuid';
import { JOB_REQUESTED } from '../adapters/amqp/job-queue.transport';
import { WorkerMetrics } from '../metrics/worker-metrics';
import { EXPIRED_MESSAGE_ERROR, FUTURE_MESSAGE_ERROR } from './commands/fail-pending-job.handler';
import { FailPendingJobCommand } from './commands/fail-pending-job.command';
import { RunJobCommand } from './commands/run-job.command';
import { type DeliveryOutcome, HANDLED, refused, TRY_AGAIN } from './delivery-outcome';
import { MessageVerifier } from './message-verifier';
import { TENANT_SCOPE, type TenantScope } from '../tenancy/tenant-scope';
import { RETRY_POLICY, type RetryPolicy, retriesExhaustedError, retryCountOf, retryDelayMs } from './redelivery';

/**
 * Turns a delivery into a command, and says what became of the delivery; the transport settles the
 * message accordingly. Every genuine message ends its job: run, tried again (bounded), or its
 * still-pending job failed.
 */
@Controller()
export class JobRequestedController {
  readonly #log = new Logger(JobRequestedController.name);

  constructor(
    private readonly verifier: MessageVerifier,
    private readonly commands: CommandBus,
    private readonly metrics: WorkerMetrics,
    @Inject(RETRY_POLICY) private readonly retry: RetryPolicy,
    @Optional() @Inject(TENANT_SCOPE) private readonly scope: TenantScope | null = null,
  ) {}

  @EventPattern(JOB_REQUESTED)
  async onJobRequested(@Payload() msg: ConsumeMessage): Promise<DeliveryOutcome> {
    const headers = (msg.properties.headers ?? {}) as Record<string, unknown>;
    const rawRequestId = headers['X-Request-Id'];
    const requestId = typeof rawRequestId === 'string' && rawRequestId !== '' ? rawRequestId : uuidv7();
    const verified = this.verifier.verify(msg);
    if (!verified.ok) {
      // Logged without the body: it is not trusted, and it may hold customer field names.
      this.#log.warn(`message rejected (${verified.reason}), request ${requestId}`);
      // Only an authentic message may end a job: a forger must not be able to fail jobs by id.
      // A future timestamp means the Manager's clock runs ahead of ours: waiting would hide that
      // fault and delay every job by the skew, so the job fails with a reason that names it.
      const error = verified.reason === 'expired' ? EXPIRED_MESSAGE_ERROR : verified.reason === 'future_timestamp' ? FUTURE_MESSAGE_ERROR : undefined;
      if (error !== undefined && verified.authentic) await this.#failPending(msg, requestId, error);
      return this.#reject(verified.reason);
    }
    // Multi-tenant: the vhost is the tenant. A message signed for another tenant (or for none) that
    // reached this vhost is authentic but misplaced: it must not run here, under this tenant's data.
    const vhostTenant = this.scope?.current();
    if (vhostTenant !== undefined && verified.tenantId !== vhostTenant) {
      this.#log.warn(`message rejected (tenant_mismatch), request ${requestId}: X-Tenant-ID does not match the vhost's tenant ${vhostTenant}`);
      return this.#reject('tenant_mismatch');
    }
    try {
      const outcome = await this.commands.execute(
        new RunJobCommand({ body: msg.content, headers, tenantHeader: verified.tenantId, requestId, receivedAt: new Date() }),
      );
      return outcome.kind === 'handled' ? HANDLED : this.#reject(outcome.reason);
    } catch (error) {
      if (vhostTenant !== undefined && isPermanentTenantError(error)) {
        // The tenant is gone or cannot be served (suspended, not found, no database configured):
        // no retry can run this job, and its database may not be reachable to record that.
        this.#log.warn(`job message dropped, request ${requestId}: tenant ${vhostTenant} cannot be served (${(error as { reason: string }).reason})`);
        this.metrics.messagesRejected.inc({ reason: 'tenant_unavailable' });
        return HANDLED;
      }
      // Infrastructure failed before the job could be settled (the database, say).
      return this.#retryOrGiveUp(msg, headers, requestId);
    }
  }

  /** Tries again a while, with a growing wait; then fails the job if it is still pending, and refuses the delivery. */
  async #retryOrGiveUp(msg: ConsumeMessage, headers: Record<string, unknown>, requestId: string): Promise<DeliveryOutcome> {
    const policy = this.retry;
    const count = retryCountOf(headers);
    if (count !== undefined && count < policy.maxRetries) {
      this.#log.warn(`job message could not be handled, request ${requestId}; retry ${count + 1} of ${policy.maxRetries}`);
      await policy.sleep(retryDelayMs(count, policy));
      this.metrics.messagesRetried.inc();
      return TRY_AGAIN;
    }
    this.#log.error(`job message could not be handled, request ${requestId}; no retry left`);
    // Usually the store is still down and this write fails too; the Manager's sweep then ends the job.
    await this.#failPending(msg, requestId, retriesExhaustedError((count ?? policy.maxRetries) + 1));
    return this.#reject('internal');
  }

  async #failPending(msg: ConsumeMessage, requestId: string, error: string): Promise<void> {
    await this.commands.execute(new FailPendingJobCommand(jobIdOfBody(msg.content).toLowerCase(), requestId, error));
  }

  #reject(reason: string): DeliveryOutcome {
    this.metrics.messagesRejected.inc({ reason });
    return refused(reason);
  }
}

/** Tenant errors no retry can fix: the tenant is unknown, suspended or purged, or its config lacks what the Worker needs. */
function isPermanentTenantError(error: unknown): boolean {
  if (error instanceof TenantManagerError) return error.reason === 'tenant_not_found' || error.tenantInactive;
  if (error instanceof TenantResourceError) return error.reason !== 'unreachable';
  return false;
}
