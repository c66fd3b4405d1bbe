import { isTerminalStatus, type JobRecord, type TerminalStatus } from '../ports/job-store.port';

/** What a delivery of a job means, given the job as stored now. */
export type DeliveryDecision =
  /** No such job: nothing can use the delivery. */
  | { readonly kind: 'not-found' }
  /** The job ended but its event may not have gone out: send the stored one again. */
  | { readonly kind: 'resend-event'; readonly status: TerminalStatus; readonly payload: string }
  /** The job ended and says its event is pending, but the stored event does not match it: not sent. */
  | { readonly kind: 'inconsistent-event' }
  /** The job ended (a canceled job, too, even one nobody started): the delivery is acked without running it. */
  | { readonly kind: 'already-ended' }
  /** A live lease: the job is running, here (`ownLease`) or on another Worker. */
  | { readonly kind: 'running'; readonly ownLease: boolean }
  /** Nobody runs it (pending, or its lease ran out): take the lease; `takeover` when it had been started. */
  | { readonly kind: 'acquire'; readonly takeover: boolean };

/** A job's state as a delivery observes it; `leaseOwner` is this Worker. */
export interface ObservedJob {
  readonly job: JobRecord | undefined;
  readonly now: Date;
  readonly leaseOwner: string;
}

/**
 * The delivery policy, pure: the same observation always gives the same decision. A lease counts
 * as live up to and including its expiry instant, as the store's `acquire` sees it.
 */
export function decideDelivery({ job, now, leaseOwner }: ObservedJob): DeliveryDecision {
  if (!job) return { kind: 'not-found' };
  if (job.metadata.terminalEventPending === true) return storedEvent(job);
  if (isTerminalStatus(job.status)) return { kind: 'already-ended' };
  if (job.status === 'processing' && job.lease && job.lease.expiresAt >= now) return { kind: 'running', ownLease: job.lease.owner === leaseOwner };
  return { kind: 'acquire', takeover: job.status === 'processing' };
}

/** The stored terminal event, if it is one that matches the job's status. */
function storedEvent(job: JobRecord): DeliveryDecision {
  const status = job.metadata.terminalEventStatus;
  const payload = job.metadata.terminalEventPayload;
  if (status !== job.status || !isTerminalStatus(job.status) || typeof payload !== 'string' || payload === '') {
    return { kind: 'inconsistent-event' };
  }
  return { kind: 'resend-event', status: job.status, payload };
}

/** What a watch of another Worker's lease does after a wake. */
export type WatchStep = 'stop' | 'take-over' | 'keep-watching';

/**
 * Stop once the job is gone or ended, or once its owner has kept it alive past `giveUpAt` (a live
 * Worker has it); take over once nobody holds a live lease; otherwise look again later.
 */
export function watchStep(job: JobRecord | undefined, now: Date, giveUpAt: Date): WatchStep {
  if (!job || isTerminalStatus(job.status)) return 'stop';
  if (job.status === 'pending' || !job.lease || job.lease.expiresAt < now) return 'take-over';
  return now > giveUpAt ? 'stop' : 'keep-watching';
}
