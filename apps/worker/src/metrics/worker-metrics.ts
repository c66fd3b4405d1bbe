import { Counter, Histogram, type Registry } from 'prom-client';

/** The Worker's own counters, registered on the registry `/metrics` serves. */
export class WorkerMetrics {
  readonly messagesRejected: Counter<'reason'>;
  readonly messagesRetried: Counter;
  readonly jobs: Counter<'status'>;
  readonly leaseTakeovers: Counter;
  readonly leaseReaped: Counter;
  readonly jobsCanceled: Counter;
  readonly cancelLatency: Histogram;
  readonly controlRejected: Counter<'reason'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.messagesRejected = new Counter({
      name: 'fetcher_worker_messages_rejected_total',
      help: 'Deliveries dead-lettered, by reason (signature checks, retryable failures).',
      labelNames: ['reason'],
      registers,
    });
    this.messagesRetried = new Counter({
      name: 'fetcher_worker_messages_retried_total',
      help: 'Deliveries republished with a higher x-retry-count after a transient infrastructure failure.',
      registers,
    });
    this.jobs = new Counter({ name: 'fetcher_worker_jobs_total', help: 'Jobs finished by this worker, by terminal status.', labelNames: ['status'], registers });
    this.leaseTakeovers = new Counter({ name: 'fetcher_worker_lease_takeovers_total', help: 'Jobs taken over from a worker whose lease expired.', registers });
    this.leaseReaped = new Counter({ name: 'fetcher_worker_lease_reaped_total', help: 'Abandoned jobs failed by the lease reaper.', registers });
    this.jobsCanceled = new Counter({ name: 'fetcher_worker_jobs_canceled_total', help: 'Jobs this worker recorded as canceled (stopped runs, and expired leases of jobs asked to cancel).', registers });
    this.cancelLatency = new Histogram({
      name: 'fetcher_worker_cancel_latency_seconds',
      help: 'From the cancel request to the canceled state stored, for runs this worker stopped.',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers,
    });
    this.controlRejected = new Counter({
      name: 'fetcher_worker_control_messages_rejected_total',
      help: 'Job control messages dropped, by reason (signature checks, malformed body).',
      labelNames: ['reason'],
      registers,
    });
  }
}
