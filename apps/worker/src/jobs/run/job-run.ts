import { rm } from 'node:fs/promises';
import type { Logger } from '@nestjs/common';
import { type ConnectorRegistry, createEngine, createTenantContext, isTenantId } from '@fetcher/engine';
import { observabilityFromTracer, type Telemetry, traced } from '@fetcher/platform';
import { WorkerCodes, WorkerError } from '../../errors/worker-error';
import type { Clock } from '../../ports/clock.port';
import type { ConnectionResolver } from '../../ports/connection-resolver.port';
import type { JobLease, JobRecord, JobStore } from '../../ports/job-store.port';
import type { ResultStore } from '../../ports/result-store.port';
import { HANDLED, type JobOutcome, refused } from '../delivery-outcome';
import { JobFailure } from '../error-text';
import { extractionRequest } from '../extraction-request';
import type { ConnectorCache } from '../connector-cache';
import { JobConnectors } from '../job-connectors';
import { completedPayload, requestMetadata } from '../job-events';
import { storedJobRequest } from '../job-message';
import type { JobDelivery, JobSettings } from '../job-settings';
import type { JobCancelRegistry } from '../cancel/job-cancel-registry';
import type { WorkerMetrics } from '../../metrics/worker-metrics';
import { canceledEventPayload } from '@fetcher/contracts';
import { LeaseKeeper } from '../lease-keeper';
import { EncryptingResultSink } from '../result/encrypting-result-sink';
import { resultLocation, spoolPath } from '../result/result-location';
import { checkOwnership, scoped } from './connection-checks';
import type { JobTerminals } from './job-terminals';

/** What a run needs besides the job: the ports and settings it works through. */
export interface JobRunDeps {
  readonly jobs: JobStore;
  readonly resolver: ConnectionResolver;
  readonly results: ResultStore;
  readonly registry: ConnectorRegistry;
  /** Datasource connectors kept between jobs; null: every job dials and closes its own. */
  readonly connectorCache: ConnectorCache | null;
  readonly settings: JobSettings;
  readonly clock: Clock;
  readonly terminals: JobTerminals;
  readonly cancels: JobCancelRegistry;
  readonly metrics: WorkerMetrics;
  readonly telemetry: Telemetry | null;
  readonly log: Logger;
}

/**
 * Runs a job this Worker holds the lease of, as stored (its request and metadata, never the message
 * body's): keeps the lease, dials its connections, runs the engine into the encrypting sink, writes
 * progress, and records exactly one terminal outcome while everything is still held. Whatever
 * happens, the connections, the sink and the spool file are released before it returns.
 *
 * A cancel request (control message or lease renewal, through the registry) aborts the engine run;
 * the run then releases everything (the multipart upload aborted, so no object is left) and records
 * `canceled` under its lease, with how far it got. The commit point is the engine's return: by then
 * the result object is stored, so a cancel that arrives later is ignored and the job completes.
 */
export class JobRun {
  constructor(private readonly deps: JobRunDeps) {}

  async run(job: JobRecord, lease: JobLease, delivery: JobDelivery, started: Date): Promise<JobOutcome> {
    const { jobs, clock, settings, terminals, log } = this.deps;
    const jobId = job.id;
    const metadata = requestMetadata(job.metadata);
    const cancel = this.deps.cancels.watch(jobId);
    // A job taken over after its owner died may already carry a cancel request: it stops at once.
    if (job.cancelRequestedAt) this.deps.cancels.request(jobId, job.cancelRequestedAt);
    const keeper = new LeaseKeeper(jobs, clock, jobId, lease.token, settings.leaseTtlMs, lease.expiresAt, (at) => this.deps.cancels.request(jobId, at));
    const signal = AbortSignal.any([keeper.signal, cancel.signal]);
    const spool = spoolPath(settings.spoolDir, jobId, lease.token);
    let connectors: JobConnectors | undefined;
    let sink: EncryptingResultSink | undefined;
    let progress: NodeJS.Timeout | undefined;
    let secrets: readonly string[] = [];
    /** Set at the commit point: only then may the connectors serve another job. */
    let succeeded = false;
    let released = false;
    const release = async (): Promise<void> => {
      if (released) return;
      released = true;
      if (progress) clearInterval(progress);
      await connectors?.closeAll(succeeded);
      await sink?.dispose();
      await rm(spool, { force: true }).catch(() => undefined);
    };
    try {
      if (cancel.signal.aborted) throw cancel.signal.reason;
      const tenantId = delivery.tenantHeader === '' ? 'default' : delivery.tenantHeader;
      if (tenantId.includes('/')) throw new WorkerError(WorkerCodes.tenantWithSlash);
      if (!isTenantId(tenantId)) throw new JobFailure('process failed: tenant id is invalid', false);
      const request = storedJobRequest(job.mappedFields, job.filters, job.incremental);
      const telemetry = this.deps.telemetry;
      const resolved = await traced(telemetry, 'job.connections.resolve', {}, () => this.deps.resolver.resolve(Object.keys(request.mappedFields)));
      secrets = resolved.flatMap((r) => r.secretValues);
      if (resolved.length === 0) throw new JobFailure('No connections found for config names', false);
      checkOwnership(resolved, metadata.source);
      const descriptors = resolved.map((r) => scoped(r.descriptor, Object.keys(request.mappedFields[r.descriptor.configName] ?? {})));
      const types = new Map(descriptors.map((d) => [d.configName, d.type]));
      const cache = this.deps.connectorCache;
      connectors = new JobConnectors(this.deps.registry, descriptors, telemetry, cache ? { cache, tenantId } : null);
      await connectors.prepare(signal);
      progress = this.#reportProgress(jobId, lease.token, connectors);

      const { resultPath, objectKey } = resultLocation(delivery.tenantHeader, jobId, settings.objectKeyPrefix);
      const keys = settings.ring.current();
      sink = new EncryptingResultSink(this.deps.results, { objectKey, resultPath, spoolPath: spool }, { externalHmac: keys.externalHmac, storage: keys.storage }, settings.upload, telemetry);
      const engine = createEngine({
        connectorRegistry: connectors,
        connectionStore: connectors,
        resultSink: sink,
        // Engine steps become child spans of the delivery's consumer span; off, the engine's no-op port.
        ...(telemetry ? { observability: observabilityFromTracer(telemetry.tracer) } : {}),
        ...(settings.maxResultBytes ? { limits: { maxResultBytes: settings.maxResultBytes } } : {}),
      });
      const tenant = createTenantContext(tenantId, delivery.requestId);
      const plan = await engine.planExtraction(tenant, extractionRequest(request, metadata, types), { signal });
      plan.requestId = jobId;
      plan.mode = 'store';
      const result = await engine.executeExtraction(plan, { signal });
      // The commit point: the result object is stored, so a cancel from here on is ignored.
      const sealed = sink.sealed;
      if (!result.reference || !sealed) throw new WorkerError(WorkerCodes.hmacFailed);
      // Every cursor is closed: the connections may serve the next job while this one writes its end.
      succeeded = true;
      await connectors.closeAll(true);

      const completedAt = clock.now();
      const reference = { path: resultPath, sizeBytes: result.reference.sizeBytes, rowCount: result.reference.rowCount, hmac: sealed.hmac };
      const cursors = result.cursors;
      const payload = completedPayload(jobId, metadata, reference, completedAt.getTime() - started.getTime(), completedAt, cursors);
      const resultStats = { sizeBytes: reference.sizeBytes, rowCount: reference.rowCount, rowCounts: result.rowCounts };
      const write = { status: 'completed', completedAt, resultPath, resultHmac: sealed.hmac, resultStats, ...(cursors ? { cursors } : {}), eventPayload: payload } as const;
      const written = await traced(telemetry, 'job.terminal-write', {}, () => terminals.writeLeased(jobId, lease.token, write, metadata));
      if (!written) return HANDLED; // the lease was lost: the job is someone else's now
      return terminals.announce(jobId, written, delivery.requestId, HANDLED);
    } catch (error) {
      if (keeper.lost) {
        log.warn(`job ${jobId}: lease lost; stopped without a terminal write`);
        return HANDLED;
      }
      // A cancel asked before the commit point wins over whatever error the abort caused.
      if (cancel.signal.aborted) return await this.#cancel(jobId, lease.token, metadata, connectors, started, cancel.requestedAt, release, delivery.requestId);
      return terminals.failLeased(jobId, lease.token, metadata, error, secrets, delivery.requestId);
    } finally {
      keeper.stop();
      cancel.release();
      await release();
    }
  }

  /**
   * Releases everything first (connections, upload, spool), so that when `canceled` is stored no
   * object or file of the run is left; then writes it under the lease, with how far the run got.
   */
  async #cancel(
    jobId: string,
    token: string,
    metadata: Readonly<Record<string, unknown>>,
    connectors: JobConnectors | undefined,
    started: Date,
    requestedAt: Date | undefined,
    release: () => Promise<void>,
    requestId: string,
  ): Promise<JobOutcome> {
    const { clock, terminals, metrics, log } = this.deps;
    await release();
    const endedAt = clock.now();
    const tablesDone = connectors?.progress.tablesDone ?? 0;
    const rowsSoFar = connectors?.progress.rows ?? 0;
    const durationMs = Math.max(0, endedAt.getTime() - started.getTime());
    const payload = canceledEventPayload(jobId, metadata, { tablesDone, rowsSoFar, durationMs }, endedAt);
    const write = { status: 'canceled', completedAt: endedAt, progress: { tablesDone, rowsSoFar, updatedAt: endedAt }, eventPayload: payload } as const;
    let written;
    try {
      written = await terminals.writeLeased(jobId, token, write, metadata);
    } catch {
      return refused('terminal_write'); // the lease runs out; the reaper records the cancel then
    }
    if (!written) return HANDLED;
    if (!written.bare) {
      metrics.jobsCanceled.inc();
      if (requestedAt) metrics.cancelLatency.observe(Math.max(0, endedAt.getTime() - requestedAt.getTime()) / 1000);
      log.log(`job ${jobId}: canceled after ${String(tablesDone)} tables, ${String(rowsSoFar)} rows`);
    }
    return terminals.announce(jobId, written, requestId, HANDLED);
  }

  /** Writes progress only when it moved, best effort: a missed write costs a stale figure, not the job. */
  #reportProgress(jobId: string, token: string, connectors: JobConnectors): NodeJS.Timeout {
    const { jobs, clock, settings } = this.deps;
    let last = -1;
    const timer = setInterval(() => {
      const { rows, tablesDone } = connectors.progress;
      if (rows + tablesDone === last) return;
      last = rows + tablesDone;
      jobs.writeProgress(jobId, token, { tablesDone, rowsSoFar: rows, updatedAt: clock.now() }).catch(() => undefined);
    }, settings.progressIntervalMs);
    timer.unref();
    return timer;
  }
}
