import type { JobCursors } from '@fetcher/contracts';
import { envelopeHeaders } from '@fetcher/platform';
import type { OutgoingEvent } from '../ports/event-publisher.port';
import type { TerminalStatus } from '../ports/job-store.port';

export interface CompletedResult {
  readonly path: string;
  readonly sizeBytes: number;
  readonly rowCount: number;
  readonly hmac: string;
}

/**
 * The `job.completed` body. Key order is part of the contract (consumers compare bytes), and zero
 * sizes, counts and durations are left out. `cursors` (an addition) comes last and only for an
 * incremental job, so every other job's body is byte for byte what it was.
 */
export function completedPayload(
  jobId: string,
  metadata: Readonly<Record<string, unknown>>,
  result: CompletedResult,
  executionTimeMs: number,
  completedAt: Date,
  cursors?: JobCursors,
): string {
  const body = {
    jobId,
    metadata,
    status: 'completed',
    result: {
      path: result.path,
      ...(result.sizeBytes > 0 ? { sizeBytes: result.sizeBytes } : {}),
      ...(result.rowCount > 0 ? { rowCount: result.rowCount } : {}),
      format: 'json',
      hmac: result.hmac,
      integrity: { algorithm: 'HMAC-SHA256', signature: result.hmac },
      protection: { encrypted: true, mode: 'adapter-managed', appliedBy: 'adapter' },
    },
    ...(executionTimeMs > 0 ? { executionTimeMs } : {}),
    completedAt: completedAt.toISOString(),
    ...(cursors ? { cursors } : {}),
  };
  return JSON.stringify(body);
}

/**
 * The metadata a job's events carry: the stored job's, as the Manager stored it, without what the
 * Worker itself keeps there (the outbox marker, an earlier error).
 */
export function requestMetadata(metadata: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { terminalEventPending: _p, terminalEventStatus: _s, terminalEventPayload: _x, error: _e, ...rest } = metadata;
  return rest;
}

/** The `job.failed` body: the request metadata plus the error as an object (a string in the job document). */
export function failedPayload(jobId: string, metadata: Readonly<Record<string, unknown>>, errorText: string): string {
  return JSON.stringify({ jobId, metadata: { ...metadata, error: { message: errorText } }, status: 'failed' });
}

export interface EventContext {
  readonly exchange: string;
  readonly source: string;
  /** The external HMAC key (current). */
  readonly key: Buffer;
  /** The tenant bound into the signature: empty in single-tenant mode. */
  readonly signedTenant: string;
  /** `ce-tenantid`: the tenant, or `single-tenant`. */
  readonly eventTenant: string;
  readonly requestId?: string;
  readonly now: Date;
}

/**
 * The wire form of a stored payload: body unchanged, CloudEvents binary-mode headers (as bytes) with
 * a deterministic id, and the HMAC envelope signed with the external key over the events exchange
 * and routing key. Re-emitting the same payload gives the same `ce-id`.
 */
export function jobEvent(jobId: string, status: TerminalStatus, payload: string, ctx: EventContext): OutgoingEvent {
  const routingKey = `job.${status}`;
  const body = Buffer.from(payload, 'utf8');
  const ce: Record<string, string> = {
    'ce-specversion': '1.0',
    'ce-id': `fetcher.job.${status}.${jobId}`,
    'ce-source': ctx.source,
    'ce-type': `studio.lerian.job.${status}`,
    'ce-time': ctx.now.toISOString(),
    'ce-schemaversion': '1.0.0',
    'ce-resourcetype': 'job',
    'ce-eventtype': status,
    'ce-subject': jobId,
    'ce-tenantid': ctx.eventTenant,
    'ce-datacontenttype': 'application/json',
  };
  const extra = Object.fromEntries(Object.entries(ce).map(([k, v]) => [k, Buffer.from(v, 'utf8')]));
  const headers = envelopeHeaders({
    key: ctx.key,
    tenantId: ctx.signedTenant,
    exchange: ctx.exchange,
    routingKey,
    body,
    jobId,
    now: ctx.now,
    ...(ctx.requestId ? { requestId: ctx.requestId } : {}),
    extra,
  });
  return { routingKey, body, headers };
}
