import { randomUUID } from 'node:crypto';
import { type BeforeApplicationShutdown, Inject, Logger, Optional } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { ConnectorRegistry } from '@fetcher/engine';
import { type Telemetry, TELEMETRY, traced } from '@fetcher/platform';
import { WorkerMetrics } from '../../metrics/worker-metrics';
import { CLOCK, type Clock } from '../../ports/clock.port';
import { CONNECTION_RESOLVER, type ConnectionResolver } from '../../ports/connection-resolver.port';
import { JOB_STORE, type JobLease, type JobStore } from '../../ports/job-store.port';
import { RESULT_STORE, type ResultStore } from '../../ports/result-store.port';
import { JobCancelRegistry } from '../cancel/job-cancel-registry';
import { CONNECTOR_CACHE, type ConnectorCache } from '../connector-cache';
import { HANDLED, type JobOutcome, refused } from '../delivery-outcome';
import { decideDelivery, watchStep } from '../delivery-policy';
import { failureText } from '../error-text';
import { requestMetadata } from '../job-events';
import { type JobMessage, MalformedMessageError, parseJobMessage, recoverJobId } from '../job-message';
import { JobOutbox } from '../job-outbox';
import { type JobDelivery, JOB_SETTINGS, type JobSettings } from '../job-settings';
import { JobRun } from '../run/job-run';
import { JobTerminals } from '../run/job-terminals';
import { RunJobCommand } from './run-job.command';

export const CONNECTOR_REGISTRY = Symbol('ConnectorRegistry');

/**
 * Owns one delivery of a job: takes the lease and runs the job when the delivery policy would, and
 * otherwise reads the job, lets the policy say what the delivery means and acts on it: re-sends a
 * pending event, or watches another Worker's lease. It answers with what became of the delivery; settling the message is the transport's.
 */
@CommandHandler(RunJobCommand)
export class RunJobHandler implements ICommandHandler<RunJobCommand>, BeforeApplicationShutdown {
  readonly #log = new Logger(RunJobHandler.name);
  readonly #terminals: JobTerminals;
  readonly #run: JobRun;
  readonly #telemetry: Telemetry | null;
  /** Jobs leased by another Worker that this one watches for a takeover, by job id. */
  readonly #watches = new Map<string, Promise<void>>();
  #stopping = false;

  constructor(
    @Inject(JOB_STORE) private readonly jobs: JobStore,
    @Inject(CONNECTION_RESOLVER) resolver: ConnectionResolver,
    @Inject(RESULT_STORE) results: ResultStore,
    @Inject(CONNECTOR_REGISTRY) registry: ConnectorRegistry,
    @Inject(JOB_SETTINGS) private readonly settings: JobSettings,
    @Inject(CLOCK) private readonly clock: Clock,
    outbox: JobOutbox,
    private readonly metrics: WorkerMetrics,
    cancels: JobCancelRegistry,
    @Optional() @Inject(TELEMETRY) telemetry: Telemetry | null = null,
    @Optional() @Inject(CONNECTOR_CACHE) connectorCache: ConnectorCache | null = null,
  ) {
    this.#telemetry = telemetry;
    this.#terminals = new JobTerminals(jobs, clock, outbox, metrics, this.#log);
    this.#run = new JobRun({ jobs, resolver, results, registry, connectorCache, settings, clock, terminals: this.#terminals, cancels, metrics, telemetry, log: this.#log });
  }

  async execute({ delivery }: RunJobCommand): Promise<JobOutcome> {
    const started = this.clock.now();
    let message: JobMessage;
    try {
      message = parseJobMessage(delivery.body);
    } catch (error) {
      if (!(error instanceof MalformedMessageError)) throw error;
      return this.#failMalformed(delivery, error);
    }
    return this.#decide(message, delivery, started, true);
  }

  /**
   * The lease is asked for first, under the delivery policy's own conditions (the store's `acquire`
   * takes exactly the jobs `decideDelivery` would run): a job to run costs one round trip. Only when
   * it is refused is the job read, and the policy says what the delivery means; its `acquire` then
   * means the job changed in between (a lost race, a lease that just ran out), so it is tried once more.
   * `mayRetry`: that second try is allowed. `watching`: called by a watch, which must not start another.
   */
  async #decide(message: JobMessage, delivery: JobDelivery, started: Date, mayRetry: boolean, watching = false): Promise<JobOutcome> {
    const now = this.clock.now();
    const lease: JobLease = { token: randomUUID(), owner: this.settings.leaseOwner, expiresAt: new Date(now.getTime() + this.settings.leaseTtlMs) };
    const acquired = await traced(this.#telemetry, 'job.lease', {}, () => this.jobs.acquire(message.jobId, lease, now));
    if (acquired) {
      if (acquired.takeover) this.metrics.leaseTakeovers.inc();
      return this.#run.run(acquired.job, lease, delivery, started);
    }
    const job = await traced(this.#telemetry, 'job.read', {}, () => this.jobs.find(message.jobId));
    const decision = decideDelivery({ job, now, leaseOwner: this.settings.leaseOwner });
    const jobId = job?.id ?? message.jobId;
    switch (decision.kind) {
      case 'not-found':
        // Logged like every other refusal (the metric alone would not say which delivery it was).
        this.#log.warn(`message rejected (job_not_found), request ${delivery.requestId}: job ${jobId} does not exist`);
        return refused('job_not_found');
      case 'resend-event':
        return this.#terminals.emit(jobId, decision.status, decision.payload, delivery.requestId, HANDLED);
      case 'inconsistent-event':
        this.#log.error(`job ${jobId}: stored terminal event is inconsistent; not sent`);
        return HANDLED;
      case 'already-ended':
        return HANDLED; // a duplicate delivery
      case 'running':
        // Handled at once rather than holding a run slot while it runs; a lease of another Worker
        // is watched in the background so that its death is noticed.
        if (!watching && !decision.ownLease) this.#startWatch(message, delivery, started);
        return HANDLED;
      case 'acquire':
        return mayRetry ? this.#decide(message, delivery, started, false, watching) : HANDLED;
    }
  }

  /** Resolves once every watch started so far has ended (and any job it took over has finished). */
  async watchesSettled(): Promise<void> {
    while (this.#watches.size > 0) await Promise.allSettled([...this.#watches.values()]);
  }

  /** No new watches or takeovers; waits for takeovers already running (watches end at their next wake). */
  async beforeApplicationShutdown(): Promise<void> {
    this.#stopping = true;
    await this.watchesSettled();
  }

  #startWatch(message: JobMessage, delivery: JobDelivery, started: Date): void {
    const { jobId } = message;
    if (this.#stopping || this.#watches.has(jobId)) return;
    const watch = this.#watch(message, delivery, started)
      .catch(() => this.#log.warn(`job ${jobId}: watching its lease failed; the lease reaper ends it if its owner is gone`))
      .finally(() => this.#watches.delete(jobId));
    this.#watches.set(jobId, watch);
  }

  /**
   * Another Worker holds a live lease. The delivery is already handled; this re-reads the job until
   * it ends, or its lease runs out (its owner died: take it over and run it here), or its owner has
   * kept renewing for TTL + 10 s (a live Worker has it; should it die later, the broker redelivers
   * its message and another watch starts). Costs one read per interval and no run slot.
   */
  async #watch(message: JobMessage, delivery: JobDelivery, started: Date): Promise<void> {
    const ttl = this.settings.leaseTtlMs;
    const interval = Math.min(5_000, Math.max(1, Math.floor(ttl / 4)));
    const giveUpAt = new Date(this.clock.now().getTime() + ttl + 10_000);
    for (;;) {
      await this.settings.upload.sleep(interval);
      if (this.#stopping) return;
      const job = await this.jobs.find(message.jobId);
      const step = watchStep(job, this.clock.now(), giveUpAt);
      if (step === 'take-over') {
        const outcome = await this.#decide(message, delivery, started, true, true);
        if (outcome.kind === 'refused') this.#log.warn(`job ${job?.id ?? message.jobId}: taken over after its lease ran out; ended with ${outcome.reason}`);
      }
      if (step !== 'keep-watching') return;
    }
  }

  /**
   * A body that is not a job. If it names a pending job, that job fails (with its stored metadata)
   * and the delivery is handled: the failed job is the record. Otherwise nothing can use it, so it is
   * refused with the reason, counted by the controller and logged here, without the body.
   */
  async #failMalformed(delivery: JobDelivery, error: MalformedMessageError): Promise<JobOutcome> {
    const jobId = recoverJobId(delivery.body, delivery.headers.jobId);
    const job = jobId ? await this.jobs.find(jobId) : undefined;
    const rejected = (): JobOutcome => {
      this.#log.warn(`message rejected (${error.reason}), request ${delivery.requestId}${job ? `, job ${job.id} is ${job.status}` : ''}`);
      return refused(error.reason);
    };
    if (!job || job.status !== 'pending') return rejected();
    const written = await this.#terminals.failPending(job.id, failureText(error), requestMetadata(job.metadata));
    if (!written) return rejected(); // started meanwhile: its own delivery runs it
    this.#log.warn(`message rejected (${error.reason}), request ${delivery.requestId}: job ${job.id} failed`);
    return this.#terminals.announce(job.id, written, delivery.requestId, HANDLED);
  }
}
