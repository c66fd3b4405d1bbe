import { rm } from 'node:fs/promises';
import type { Logger } from '@nestjs/common';
import { type ConnectorRegistry, createEngine, createTenantContext, isTenantId } from '@fetcher/engine';
import { observabilityFromTracer, type Telemetry } from '@fetcher/platform';
import { WorkerCodes, WorkerError } from '../../errors/worker-error';
import type { Clock } from '../../ports/clock.port';
import type { ConnectionResolver } from '../../ports/connection-resolver.port';
import type { JobLease, JobRecord, JobStore } from '../../ports/job-store.port';
import type { ResultStore } from '../../ports/result-store.port';
import { HANDLED, type JobOutcome } from '../delivery-outcome';
import { JobFailure } from '../error-text';
import { extractionRequest } from '../extraction-request';
import { JobConnectors } from '../job-connectors';
import { completedPayload, requestMetadata } from '../job-events';
import { storedJobRequest } from '../job-message';
import type { JobDelivery, JobSettings } from '../job-settings';
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
  readonly settings: JobSettings;
  readonly clock: Clock;
  readonly terminals: JobTerminals;
  readonly telemetry: Telemetry | null;
  readonly log: Logger;
}

/**
 * Runs a job this Worker holds the lease of, as stored (its request and metadata, never the message
 * body's): keeps the lease, dials its connections, runs the engine into the encrypting sink, writes
 * progress, and records exactly one terminal outcome while everything is still held. Whatever
 * happens, the connections, the sink and the spool file are released before it returns.
 */
export class JobRun {
  constructor(private readonly deps: JobRunDeps) {}

  async run(job: JobRecord, lease: JobLease, delivery: JobDelivery, started: Date): Promise<JobOutcome> {
    const { jobs, clock, settings, terminals, log } = this.deps;
    const jobId = job.id;
    const metadata = requestMetadata(job.metadata);
    const keeper = new LeaseKeeper(jobs, clock, jobId, lease.token, settings.leaseTtlMs, lease.expiresAt);
    const spool = spoolPath(settings.spoolDir, jobId, lease.token);
    let connectors: JobConnectors | undefined;
    let sink: EncryptingResultSink | undefined;
    let progress: NodeJS.Timeout | undefined;
    let secrets: readonly string[] = [];
    try {
      const tenantId = delivery.tenantHeader === '' ? 'default' : delivery.tenantHeader;
      if (tenantId.includes('/')) throw new WorkerError(WorkerCodes.tenantWithSlash);
      if (!isTenantId(tenantId)) throw new JobFailure('process failed: tenant id is invalid', false);
      const request = storedJobRequest(job.mappedFields, job.filters);
      const resolved = await this.deps.resolver.resolve(Object.keys(request.mappedFields));
      secrets = resolved.flatMap((r) => r.secretValues);
      if (resolved.length === 0) throw new JobFailure('No connections found for config names', false);
      checkOwnership(resolved, metadata.source);
      const descriptors = resolved.map((r) => scoped(r.descriptor, Object.keys(request.mappedFields[r.descriptor.configName] ?? {})));
      const types = new Map(descriptors.map((d) => [d.configName, d.type]));
      connectors = new JobConnectors(this.deps.registry, descriptors);
      progress = this.#reportProgress(jobId, lease.token, connectors);

      const { resultPath, objectKey } = resultLocation(delivery.tenantHeader, jobId, settings.objectKeyPrefix);
      const keys = settings.ring.current();
      sink = new EncryptingResultSink(this.deps.results, { objectKey, resultPath, spoolPath: spool }, { externalHmac: keys.externalHmac, storage: keys.storage }, settings.upload);
      const telemetry = this.deps.telemetry;
      const engine = createEngine({
        connectorRegistry: connectors,
        connectionStore: connectors,
        resultSink: sink,
        // Engine steps become child spans of the delivery's consumer span; off, the engine's no-op port.
        ...(telemetry ? { observability: observabilityFromTracer(telemetry.tracer) } : {}),
        ...(settings.maxResultBytes ? { limits: { maxResultBytes: settings.maxResultBytes } } : {}),
      });
      const tenant = createTenantContext(tenantId, delivery.requestId);
      const plan = await engine.planExtraction(tenant, extractionRequest(request, metadata, types), { signal: keeper.signal });
      plan.requestId = jobId;
      plan.mode = 'store';
      const result = await engine.executeExtraction(plan, { signal: keeper.signal });
      const sealed = sink.sealed;
      if (!result.reference || !sealed) throw new WorkerError(WorkerCodes.hmacFailed);

      const completedAt = clock.now();
      const reference = { path: resultPath, sizeBytes: result.reference.sizeBytes, rowCount: result.reference.rowCount, hmac: sealed.hmac };
      const payload = completedPayload(jobId, metadata, reference, completedAt.getTime() - started.getTime(), completedAt);
      const write = { status: 'completed', completedAt, resultPath, resultHmac: sealed.hmac, eventPayload: payload } as const;
      const written = await terminals.writeLeased(jobId, lease.token, write, metadata);
      if (!written) return HANDLED; // the lease was lost: the job is someone else's now
      return terminals.announce(jobId, written, delivery.requestId, HANDLED);
    } catch (error) {
      if (keeper.lost) {
        log.warn(`job ${jobId}: lease lost; stopped without a terminal write`);
        return HANDLED;
      }
      return terminals.failLeased(jobId, lease.token, metadata, error, secrets, delivery.requestId);
    } finally {
      keeper.stop();
      if (progress) clearInterval(progress);
      await connectors?.closeAll();
      await sink?.dispose();
      await rm(spool, { force: true }).catch(() => undefined);
    }
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
