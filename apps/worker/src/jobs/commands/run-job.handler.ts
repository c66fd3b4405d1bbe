import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type BeforeApplicationShutdown, Inject, Logger, Optional } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  type ConnectionDescriptor,
  type ConnectorRegistry,
  createEngine,
  createTenantContext,
  EngineError,
  isTenantId,
  withConnectionSecrets,
} from '@fetcher/engine';
import { observabilityFromTracer, type Telemetry } from '@fetcher/platform';
import { WorkerCodes, WorkerError } from '../../errors/worker-error';
import { WorkerMetrics } from '../../metrics/worker-metrics';
import { CLOCK, type Clock } from '../../ports/clock.port';
import { CONNECTION_RESOLVER, type ConnectionResolver, type ResolvedConnection } from '../../ports/connection-resolver.port';
import { JOB_STORE, type JobLease, type JobRecord, type JobStore, type TerminalStatus } from '../../ports/job-store.port';
import { RESULT_STORE, type ResultStore } from '../../ports/result-store.port';
import { JobFailure, failureText, sanitiseErrorText } from '../error-text';
import { extractionRequest, schemaScope } from '../extraction-request';
import { JobConnectors } from '../job-connectors';
import { completedPayload, failedPayload, requestMetadata } from '../job-events';
import { type JobMessage, MalformedMessageError, parseJobMessage, recoverJobId, storedJobRequest } from '../job-message';
import { JobOutbox } from '../job-outbox';
import { type JobDelivery, type JobOutcome, JOB_SETTINGS, type JobSettings } from '../job-settings';
import { LeaseKeeper } from '../lease-keeper';
import { type WrittenTerminal, writeTerminalOrBare } from '../terminal-write';
import { EncryptingResultSink } from '../result/encrypting-result-sink';
import { TELEMETRY } from '@fetcher/platform';
import { RunJobCommand } from './run-job.command';

export const CONNECTOR_REGISTRY = Symbol('ConnectorRegistry');

const ACK: JobOutcome = { settle: 'ack' };
const deadLetter = (reason: string): JobOutcome => ({ settle: 'dead-letter', reason });

/**
 * Owns one job's life: decides from the stored state what a delivery means, takes the lease, runs
 * the extraction into the encrypting sink, makes exactly one terminal write (conditional on the
 * lease) and sends its event. It never settles the delivery itself; it says how.
 */
@CommandHandler(RunJobCommand)
export class RunJobHandler implements ICommandHandler<RunJobCommand>, BeforeApplicationShutdown {
  readonly #log = new Logger(RunJobHandler.name);
  /** Jobs leased by another Worker that this one watches for a takeover, by job id. */
  readonly #watches = new Map<string, Promise<void>>();
  #stopping = false;

  constructor(
    @Inject(JOB_STORE) private readonly jobs: JobStore,
    @Inject(CONNECTION_RESOLVER) private readonly resolver: ConnectionResolver,
    @Inject(RESULT_STORE) private readonly results: ResultStore,
    @Inject(CONNECTOR_REGISTRY) private readonly registry: ConnectorRegistry,
    @Inject(JOB_SETTINGS) private readonly settings: JobSettings,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly outbox: JobOutbox,
    private readonly metrics: WorkerMetrics,
    @Optional() @Inject(TELEMETRY) private readonly telemetry: Telemetry | null = null,
  ) {}

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

  /** `watching`: called by a watch, which must not start another. */
  async #decide(message: JobMessage, delivery: JobDelivery, started: Date, mayRetry: boolean, watching = false): Promise<JobOutcome> {
    const job = await this.jobs.find(message.jobId);
    if (!job) return deadLetter('job_not_found');
    if (job.metadata.terminalEventPending === true) return this.#reemit(job, delivery.requestId);
    if (job.status === 'completed' || job.status === 'failed') return ACK; // a duplicate delivery
    const now = this.clock.now();
    if (job.status === 'processing' && job.lease && job.lease.expiresAt >= now) {
      // A live lease: the job is running. Ack at once rather than hold a run slot while it runs;
      // a lease of another Worker is watched in the background so that its death is noticed.
      if (!watching && job.lease.owner !== this.settings.leaseOwner) this.#startWatch(message, delivery, started);
      return ACK;
    }
    const lease: JobLease = { token: randomUUID(), owner: this.settings.leaseOwner, expiresAt: new Date(now.getTime() + this.settings.leaseTtlMs) };
    const acquired = await this.jobs.acquire(message.jobId, lease, now);
    if (!acquired) return mayRetry ? this.#decide(message, delivery, started, false, watching) : ACK;
    if (job.status === 'processing') this.metrics.leaseTakeovers.inc();
    return this.#run(acquired, lease, delivery, started);
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
   * Another Worker holds a live lease. The delivery is already acked; this re-reads the job until it
   * ends, or its lease runs out (its owner died: take it over and run it here), or its owner has
   * kept renewing for TTL + 10 s (a live Worker has it; should it die later, the broker redelivers
   * its message and another watch starts). Costs one read per interval and no run slot.
   */
  async #watch(message: JobMessage, delivery: JobDelivery, started: Date): Promise<void> {
    const ttl = this.settings.leaseTtlMs;
    const interval = Math.min(5_000, Math.max(1, Math.floor(ttl / 4)));
    const giveUpAt = this.clock.now().getTime() + ttl + 10_000;
    for (;;) {
      await this.settings.upload.sleep(interval);
      if (this.#stopping) return;
      const job = await this.jobs.find(message.jobId);
      if (!job || job.status === 'completed' || job.status === 'failed') return;
      if (job.status === 'pending' || !job.lease || job.lease.expiresAt < this.clock.now()) {
        const outcome = await this.#decide(message, delivery, started, true, true);
        if (outcome.settle === 'dead-letter') this.#log.warn(`job ${job.id}: taken over after its lease ran out; ended with ${outcome.reason ?? 'internal'}`);
        return;
      }
      if (this.clock.now().getTime() > giveUpAt) return;
    }
  }

  /** Runs the job as stored: its request and metadata, never the message body's. */
  async #run(job: JobRecord, lease: JobLease, delivery: JobDelivery, started: Date): Promise<JobOutcome> {
    const jobId = job.id;
    const metadata = requestMetadata(job.metadata);
    const keeper = new LeaseKeeper(this.jobs, this.clock, jobId, lease.token, this.settings.leaseTtlMs, lease.expiresAt);
    const spoolPath = join(this.settings.spoolDir, `${jobId}-${lease.token}.b64`);
    let connectors: JobConnectors | undefined;
    let sink: EncryptingResultSink | undefined;
    let progress: NodeJS.Timeout | undefined;
    let secrets: readonly string[] = [];
    try {
      const tenantId = delivery.tenantHeader === '' ? 'default' : delivery.tenantHeader;
      if (tenantId.includes('/')) throw new WorkerError(WorkerCodes.tenantWithSlash);
      if (!isTenantId(tenantId)) throw new JobFailure('process failed: tenant id is invalid', false);
      const request = storedJobRequest(job.mappedFields, job.filters);
      const resolved = await this.resolver.resolve(Object.keys(request.mappedFields));
      secrets = resolved.flatMap((r) => r.secretValues);
      if (resolved.length === 0) throw new JobFailure('No connections found for config names', false);
      checkOwnership(resolved, metadata.source);
      const descriptors = resolved.map((r) => scoped(r.descriptor, Object.keys(request.mappedFields[r.descriptor.configName] ?? {})));
      const types = new Map(descriptors.map((d) => [d.configName, d.type]));
      connectors = new JobConnectors(this.registry, descriptors);
      progress = this.#reportProgress(jobId, lease.token, connectors);

      const resultPath = `${delivery.tenantHeader === '' ? '' : `${tenantId}/`}external-data/${jobId}.json`;
      const objectKey = `${this.settings.objectKeyPrefix}${resultPath}`.replace(/^\/+/, '');
      const keys = this.settings.ring.current();
      sink = new EncryptingResultSink(this.results, { objectKey, resultPath, spoolPath }, { externalHmac: keys.externalHmac, storage: keys.storage }, this.settings.upload);
      const engine = createEngine({
        connectorRegistry: connectors,
        connectionStore: connectors,
        resultSink: sink,
        // Engine steps become child spans of the delivery's consumer span; off, the engine's no-op port.
        ...(this.telemetry ? { observability: observabilityFromTracer(this.telemetry.tracer) } : {}),
        ...(this.settings.maxResultBytes ? { limits: { maxResultBytes: this.settings.maxResultBytes } } : {}),
      });
      const tenant = createTenantContext(tenantId, delivery.requestId);
      const plan = await engine.planExtraction(tenant, extractionRequest(request, metadata, types), { signal: keeper.signal });
      plan.requestId = jobId;
      plan.mode = 'store';
      const result = await engine.executeExtraction(plan, { signal: keeper.signal });
      const sealed = sink.sealed;
      if (!result.reference || !sealed) throw new WorkerError(WorkerCodes.hmacFailed);

      const completedAt = this.clock.now();
      const payload = completedPayload(
        jobId,
        metadata,
        { path: resultPath, sizeBytes: result.reference.sizeBytes, rowCount: result.reference.rowCount, hmac: sealed.hmac },
        completedAt.getTime() - started.getTime(),
        completedAt,
      );
      const written = await writeTerminalOrBare(this.jobs, jobId, { kind: 'lease', token: lease.token }, {
        status: 'completed',
        completedAt,
        resultPath,
        resultHmac: sealed.hmac,
        eventPayload: payload,
      }, metadata);
      if (!written) return ACK; // the lease was lost: the job is someone else's now
      return this.#recorded(jobId, written, delivery.requestId, ACK);
    } catch (error) {
      if (keeper.lost) {
        this.#log.warn(`job ${jobId}: lease lost; stopped without a terminal write`);
        return ACK;
      }
      return this.#failLeased(jobId, lease.token, metadata, error, secrets, delivery.requestId);
    } finally {
      keeper.stop();
      if (progress) clearInterval(progress);
      await connectors?.closeAll();
      await sink?.dispose();
      await rm(spoolPath, { force: true }).catch(() => undefined);
    }
  }

  async #failLeased(
    jobId: string,
    token: string,
    metadata: Readonly<Record<string, unknown>>,
    error: unknown,
    secrets: readonly string[],
    requestId: string,
  ): Promise<JobOutcome> {
    const text = sanitiseErrorText(failureText(error), secrets);
    const payload = failedPayload(jobId, metadata, text);
    let written: WrittenTerminal | undefined;
    try {
      written = await writeTerminalOrBare(this.jobs, jobId, { kind: 'lease', token }, { status: 'failed', completedAt: this.clock.now(), error: text, eventPayload: payload }, metadata);
    } catch {
      return deadLetter('terminal_write'); // the database is out of reach: the reaper fails the job once its lease has expired
    }
    if (!written) return ACK;
    return this.#recorded(jobId, written, requestId, settlementFor(error));
  }

  /** Counts and announces a terminal write; a bare one (the real outcome was refused) dead-letters its delivery. */
  #recorded(jobId: string, written: WrittenTerminal, requestId: string, then: JobOutcome): Promise<JobOutcome> {
    const { status, eventPayload } = written.write;
    if (written.bare) this.#log.warn(`job ${jobId}: the database refused its outcome as written; a bare failure was stored instead`);
    this.metrics.jobs.inc({ status });
    return this.#emit(jobId, status, eventPayload, requestId, written.bare ? deadLetter('terminal_write_refused') : then);
  }

  /**
   * A body that is not a job. If it names a pending job, that job fails (with its stored metadata)
   * and the delivery is acked: the failed job is the record. Otherwise nothing can use it, so it is
   * dead-lettered with the reason, counted by the controller and logged here, without the body.
   */
  async #failMalformed(delivery: JobDelivery, error: MalformedMessageError): Promise<JobOutcome> {
    const jobId = recoverJobId(delivery.body, delivery.headers.jobId);
    const job = jobId ? await this.jobs.find(jobId) : undefined;
    const rejected = (): JobOutcome => {
      this.#log.warn(`message rejected (${error.reason}), request ${delivery.requestId}${job ? `, job ${job.id} is ${job.status}` : ''}`);
      return deadLetter(error.reason);
    };
    if (!job || job.status !== 'pending') return rejected();
    const text = failureText(error);
    const metadata = requestMetadata(job.metadata);
    const payload = failedPayload(job.id, metadata, text);
    const written = await writeTerminalOrBare(this.jobs, job.id, { kind: 'pending' }, { status: 'failed', completedAt: this.clock.now(), error: text, eventPayload: payload }, metadata);
    if (!written) return rejected(); // started meanwhile: its own delivery runs it
    this.#log.warn(`message rejected (${error.reason}), request ${delivery.requestId}: job ${job.id} failed`);
    return this.#recorded(job.id, written, delivery.requestId, ACK);
  }

  /** The job ended but its event may not have gone out: send the stored one again, same id. */
  async #reemit(job: JobRecord, requestId: string): Promise<JobOutcome> {
    const status = job.metadata.terminalEventStatus;
    const payload = job.metadata.terminalEventPayload;
    if ((status !== 'completed' && status !== 'failed') || status !== job.status || typeof payload !== 'string' || payload === '') {
      this.#log.error(`job ${job.id}: stored terminal event is inconsistent; not sent`);
      return ACK;
    }
    return this.#emit(job.id, status, payload, requestId, ACK);
  }

  async #emit(jobId: string, status: TerminalStatus, payload: string, requestId: string, then: JobOutcome): Promise<JobOutcome> {
    try {
      await this.outbox.emit(jobId, status, payload, requestId);
      return then;
    } catch {
      this.#log.warn(`job ${jobId}: ${status} event not confirmed; the repairer will send it`);
      return deadLetter('event_publish');
    }
  }

  #reportProgress(jobId: string, token: string, connectors: JobConnectors): NodeJS.Timeout {
    let last = -1;
    const timer = setInterval(() => {
      const { rows, tablesDone } = connectors.progress;
      if (rows + tablesDone === last) return;
      last = rows + tablesDone;
      this.jobs.writeProgress(jobId, token, { tablesDone, rowsSoFar: rows, updatedAt: this.clock.now() }).catch(() => undefined);
    }, this.settings.progressIntervalMs);
    timer.unref();
    return timer;
  }
}

/** How a failure settles the delivery once the job is failed: engine and infrastructure errors go to the DLQ. */
function settlementFor(error: unknown): JobOutcome {
  if (error instanceof EngineError) return deadLetter(`engine_${error.category}`);
  if (error instanceof WorkerError) return error.retryable ? deadLetter(error.code) : ACK;
  if (error instanceof JobFailure) return error.retryable ? deadLetter('job_failure') : ACK;
  if (error instanceof MalformedMessageError) return ACK; // the stored request is invalid: no delivery can fix it
  return deadLetter('internal');
}

/**
 * Every stored connection a job uses must belong to the job's product (`metadata.source`, compared
 * case-sensitively, as the Manager does when it accepts the job); internal datasources belong to
 * every product. Checked before anything is dialled, so a connection that changed hands since (deleted
 * and recreated under the same name by another product) is never read for this job.
 */
function checkOwnership(resolved: readonly ResolvedConnection[], source: unknown): void {
  const product = typeof source === 'string' ? source : '';
  for (const connection of resolved) {
    if (connection.internal) continue;
    const name = connection.descriptor.configName;
    if (!connection.productName) throw new JobFailure(`FET-1014: Connection '${name}' has no product assigned`, false);
    if (connection.productName !== product) {
      throw new JobFailure(`FET-1016: Connection '${name}' does not belong to the product identified by source '${product}'`, false);
    }
  }
}

/** The descriptor with the job's schema scope added to its (non-secret) host attributes. */
function scoped(descriptor: ConnectionDescriptor, rawKeys: readonly string[]): ConnectionDescriptor {
  const hostAttributes = { ...(descriptor.hostAttributes ?? {}), schemaScope: schemaScope(descriptor.type, rawKeys) };
  return withConnectionSecrets({ ...descriptor, hostAttributes }, descriptor.secrets);
}
