import type { z } from 'zod';
import type { GetOutcome } from './bounded-get';
import { TenantManagerError, type TenantManagerErrorDetails } from './tenant-manager-error';

/**
 * What an outcome does to the circuit breaker: `failure` for no answer or a 5xx, `success` for an
 * answer that shows the service working, `neutral` for an answer that says nothing either way (a
 * 200 with a bad body, and on `/connections` an unexpected 4xx).
 */
export type BreakerEffect = 'success' | 'failure' | 'neutral';

export type Classified<T> =
  | { readonly ok: true; readonly value: T; readonly breaker: BreakerEffect }
  | { readonly ok: false; readonly error: TenantManagerError; readonly breaker: BreakerEffect };

type Context = Pick<TenantManagerErrorDetails, 'tenantId' | 'service'>;

/** `/v1/tenants/{id}/associations/{service}/connections`: 404 and 403 are answers about the tenant. */
export function classifyConnections<T>(outcome: GetOutcome, schema: z.ZodType<T>, context: Context): Classified<T> {
  if (outcome.kind === 'failed') return transportFailure(outcome, context);
  const { status } = outcome;
  if (status === 200) return parsed(outcome, schema, context);
  if (status === 404) return { ok: false, error: new TenantManagerError('tenant_not_found', { ...context, httpStatus: status }), breaker: 'success' };
  if (status === 403) return { ok: false, error: forbidden(outcome.text, context), breaker: 'success' };
  if (status >= 500) return { ok: false, error: new TenantManagerError('server_error', { ...context, httpStatus: status }), breaker: 'failure' };
  return { ok: false, error: new TenantManagerError('unexpected_status', { ...context, httpStatus: status }), breaker: 'neutral' };
}

/** `/v1/tenants/active`: any answer below 500 shows the service working, even a refusal. */
export function classifyActiveTenants<T>(outcome: GetOutcome, schema: z.ZodType<T>, context: Context): Classified<T> {
  if (outcome.kind === 'failed') return transportFailure(outcome, context);
  const { status } = outcome;
  if (status === 200) return parsed(outcome, schema, context);
  if (status >= 500) return { ok: false, error: new TenantManagerError('server_error', { ...context, httpStatus: status }), breaker: 'failure' };
  return { ok: false, error: new TenantManagerError('unexpected_status', { ...context, httpStatus: status }), breaker: 'success' };
}

function transportFailure<T>(outcome: GetOutcome & { kind: 'failed' }, context: Context): Classified<T> {
  return { ok: false, error: new TenantManagerError(outcome.timedOut ? 'timeout' : 'unreachable', { ...context, cause: outcome.cause }), breaker: 'failure' };
}

function parsed<T>(outcome: GetOutcome & { kind: 'answered' }, schema: z.ZodType<T>, context: Context): Classified<T> {
  const value = outcome.truncated ? undefined : parseJson(outcome.text);
  const result = value === undefined ? undefined : schema.safeParse(value.json);
  if (result?.success) return { ok: true, value: result.data, breaker: 'success' };
  return { ok: false, error: new TenantManagerError('bad_response', { ...context, httpStatus: outcome.status, cause: result?.error }), breaker: 'neutral' };
}

/**
 * A 403 is "suspended" or "purged" only when its JSON body names a status; the tenant-manager sends
 * `{"code", "error", "status"}`, and only `status` matters.
 */
function forbidden(text: string, context: Context): TenantManagerError {
  const body = parseJson(text)?.json;
  const status = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).status : undefined;
  if (typeof status !== 'string' || status === '') return new TenantManagerError('access_denied', { ...context, httpStatus: 403 });
  return new TenantManagerError(status === 'purged' ? 'tenant_purged' : 'tenant_suspended', { ...context, httpStatus: 403, tenantStatus: status });
}

function parseJson(text: string): { json: unknown } | undefined {
  try {
    return { json: JSON.parse(text) };
  } catch {
    return undefined;
  }
}
