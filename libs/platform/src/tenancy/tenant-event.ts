/** Tenant lifecycle events are published on one channel per environment; note the trailing colon. */
export function tenantEventsChannel(environment: string): string {
  const env = environment.trim().toLowerCase();
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(env)) throw new Error('tenant events: the environment name must be letters, digits, _ or -');
  return `tenant-events:${env}:`;
}

/** The environments the tenant-manager publishes for; the services refuse to start with any other. */
export const TENANT_EVENT_ENVIRONMENTS = Object.freeze(['staging', 'production'] as const);

/** One tenant lifecycle envelope, as published (snake_case on the wire). */
export interface TenantLifecycleEvent {
  readonly eventId?: string;
  readonly eventType: string;
  readonly timestamp?: Date;
  readonly tenantId: string;
  readonly tenantSlug?: string;
  readonly environment?: string;
  /** The per-type payload; service-scoped events carry `service_name`. */
  readonly payload?: Readonly<Record<string, unknown>>;
}

export type ParsedTenantEvent = { readonly ok: true; readonly event: TenantLifecycleEvent } | { readonly ok: false; readonly reason: string };

// RFC 3339: a date, `T`, a time with optional fraction, and `Z` or an offset.
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Parses a Pub/Sub message. A message without `event_type` or `tenant_id` is refused, never guessed at. */
export function parseTenantEvent(message: string): ParsedTenantEvent {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, reason: 'not a JSON object' };
  const raw = value as Record<string, unknown>;
  if (typeof raw.event_type !== 'string' || raw.event_type === '') return { ok: false, reason: 'event_type is missing' };
  if (typeof raw.tenant_id !== 'string' || raw.tenant_id === '') return { ok: false, reason: 'tenant_id is missing' };
  let timestamp: Date | undefined;
  if (raw.timestamp !== undefined && raw.timestamp !== null) {
    if (typeof raw.timestamp !== 'string' || !RFC3339.test(raw.timestamp) || Number.isNaN(Date.parse(raw.timestamp))) {
      return { ok: false, reason: 'timestamp is not RFC 3339' };
    }
    timestamp = new Date(raw.timestamp);
  }
  const payload = raw.payload !== null && typeof raw.payload === 'object' && !Array.isArray(raw.payload)
    ? (raw.payload as Record<string, unknown>) : undefined;
  const text = (field: unknown): string | undefined => (typeof field === 'string' ? field : undefined);
  return {
    ok: true,
    event: {
      eventType: raw.event_type,
      tenantId: raw.tenant_id,
      ...(text(raw.event_id) !== undefined ? { eventId: text(raw.event_id) } : {}),
      ...(timestamp ? { timestamp } : {}),
      ...(text(raw.tenant_slug) !== undefined ? { tenantSlug: text(raw.tenant_slug) } : {}),
      ...(text(raw.environment) !== undefined ? { environment: text(raw.environment) } : {}),
      ...(payload ? { payload } : {}),
    },
  };
}
