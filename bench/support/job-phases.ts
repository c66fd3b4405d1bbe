/**
 * One job's trace cut into the phases of its life, in milliseconds. Spans (names as the apps emit them):
 *
 *   Manager  POST /v1/fetcher (server span) > job.dedup-lookup, job.connections.resolve,
 *            job.connectivity-check, job.schema-check, job.insert, job.publish > publish <queue>
 *   Worker   consume <queue> > job.read, job.lease, job.connections.resolve, connector.reuse (a kept
 *            connector rechecked and pinged), engine.extraction.plan > connector.schema (holds the first dial),
 *            engine.extraction.execute > connector.query, connector.read (busy time), result.encrypt
 *            (busy time), result.upload; job.terminal-write, publish <events exchange>
 *
 * Gaps are phases too: "delivery" is from the publish's confirm to the consumer span's start; what
 * the execute span holds beyond the query, the reads, the encryption and the upload is the engine's
 * encoding and writing ("encode + write").
 */
import type { CollectedSpan } from './span-collector';

export const PHASES = [
  'http handling', 'dedup lookup', 'connection resolve (manager)', 'connectivity check', 'schema check', 'mongo insert',
  'publish + confirm', 'mark dispatched', 'delivery', 'job read', 'lease acquire', 'connection resolve + decrypt',
  'plan', 'connect + schema', 'query', 'read rows', 'encode + write', 'encrypt', 'PutObject', 'terminal write',
  'event publish', 'other',
] as const;
export type Phase = (typeof PHASES)[number];

const duration = (span: CollectedSpan | undefined): number => (span ? span.end - span.start : 0);

/** The phases of one job's trace, or undefined when the trace is not a complete job (e.g. a GET). */
export function jobPhases(spans: readonly CollectedSpan[], names: { queue: string; exchange: string }): Record<Phase, number> | undefined {
  const one = (name: string): CollectedSpan | undefined => spans.find((s) => s.name === name);
  const http = one('POST /v1/fetcher');
  const consume = one(`consume ${names.queue}`);
  const published = one(`publish ${names.queue}`);
  const event = one(`publish ${names.exchange}`);
  if (!http || !consume || !published || !event) return undefined;
  const manager = (name: string): CollectedSpan | undefined => spans.find((s) => s.name === name && s.start >= http.start && s.end <= http.end);
  const worker = (name: string): CollectedSpan | undefined => spans.find((s) => s.name === name && s.start >= consume.start);
  const sum = (name: string): number => spans.filter((s) => s.name === name && s.start >= consume.start).reduce((t, s) => t + duration(s), 0);
  const busy = (name: string): number => spans.filter((s) => s.name === name).reduce((t, s) => t + Number(s.attributes['fetcher.busy_ms'] ?? 0), 0);

  const managerSteps = ['job.dedup-lookup', 'job.connections.resolve', 'job.connectivity-check', 'job.schema-check', 'job.insert', 'job.publish'];
  const phases: Record<Phase, number> = {
    'http handling': duration(http) - managerSteps.reduce((t, n) => t + duration(manager(n)), 0),
    'dedup lookup': duration(manager('job.dedup-lookup')),
    'connection resolve (manager)': duration(manager('job.connections.resolve')),
    'connectivity check': duration(manager('job.connectivity-check')),
    'schema check': duration(manager('job.schema-check')),
    'mongo insert': duration(manager('job.insert')),
    'publish + confirm': duration(published),
    'mark dispatched': duration(manager('job.publish')) - duration(published),
    delivery: Math.max(0, consume.start - published.end),
    'job read': sum('job.read'),
    'lease acquire': sum('job.lease'),
    'connection resolve + decrypt': duration(worker('job.connections.resolve')),
    plan: duration(worker('engine.extraction.plan')) - sum('connector.schema'),
    'connect + schema': sum('connector.reuse') + sum('connector.schema'),
    query: sum('connector.query'),
    'read rows': busy('connector.read'),
    'encode + write': 0,
    encrypt: busy('result.encrypt'),
    PutObject: sum('result.upload'),
    'terminal write': sum('job.terminal-write'),
    'event publish': duration(event),
    other: 0,
  };
  phases['encode + write'] = Math.max(0, duration(worker('engine.extraction.execute')) - phases.query - phases['read rows'] - phases.encrypt - phases.PutObject);
  // Up to the event's confirm, against everything named: the Manager's answer overlaps nothing (the
  // publish precedes it), so what is left is the Worker's own glue between spans.
  const total = event.end - http.start;
  const named = PHASES.filter((p) => p !== 'other').reduce((t, p) => t + phases[p], 0);
  phases.other = Math.max(0, total - named);
  return phases;
}
