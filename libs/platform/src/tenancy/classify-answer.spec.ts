import { inspect } from 'node:util';
import type { GetOutcome } from './bounded-get';
import { type Classified, classifyActiveTenants, classifyConnections } from './classify-answer';
import { ActiveTenantsSchema, TenantConfigSchema } from './tenant-config';
import { type TenantManagerError } from './tenant-manager-error';

const ctx = { tenantId: 'acme', service: 'fetcher' };
const answered = (status: number, body: unknown, truncated = false): GetOutcome =>
  ({ kind: 'answered', status, text: typeof body === 'string' ? body : JSON.stringify(body), truncated });
const connections = (outcome: GetOutcome) => classifyConnections(outcome, TenantConfigSchema, ctx);
const active = (outcome: GetOutcome) => classifyActiveTenants(outcome, ActiveTenantsSchema, { service: 'fetcher' });
const failure = <T>(result: Classified<T>) => {
  if (result.ok) throw new Error('expected a failure');
  return { reason: result.error.reason, category: result.error.category, breaker: result.breaker, tenantStatus: result.error.tenantStatus };
};

describe(classifyConnections.name, () => {
  it('parses a 200, drops unknown fields and absent or null ones, and counts a success', () => {
    const result = connections(answered(200, {
      id: 'acme', tenantSlug: 'acme', extra: 1, tenantName: null,
      databases: { fetcher: { mongodb: { uri: 'mongodb://h', database: 'acme_db', unknown: true } } },
      messaging: { rabbitmq: { host: 'mq', port: 5672, vhost: 'acme', username: 'u', password: 'p' } },
      createdAt: '2026-01-02T03:04:05.123Z',
    }));
    expect(result).toEqual({
      ok: true,
      breaker: 'success',
      value: {
        id: 'acme', tenantSlug: 'acme',
        databases: { fetcher: { mongodb: { uri: 'mongodb://h', database: 'acme_db' } } },
        messaging: { rabbitmq: { host: 'mq', port: 5672, vhost: 'acme', username: 'u', password: 'p' } },
        createdAt: '2026-01-02T03:04:05.123Z',
      },
    });
  });

  it.each([
    ['a string port', { messaging: { rabbitmq: { port: '5672' } } }],
    ['a fractional port', { databases: { x: { postgresql: { port: 5432.5 } } } }],
    ['a non-RFC 3339 timestamp', { createdAt: '2026-01-02 03:04' }],
    ['an array', []],
    ['invalid JSON', '{"id":'],
  ])('refuses a 200 with %s as bad_response, without touching the breaker', (_, body) => {
    expect(failure(connections(answered(200, body)))).toMatchObject({ reason: 'bad_response', category: 'internal', breaker: 'neutral' });
  });

  it('refuses a body cut off at the size cap', () => {
    expect(failure(connections(answered(200, { id: 'acme' }, true)))).toMatchObject({ reason: 'bad_response' });
  });

  it('maps 404 to tenant_not_found and counts it as a success', () => {
    expect(failure(connections(answered(404, { code: 'x' })))).toEqual({ reason: 'tenant_not_found', category: 'not_found', breaker: 'success', tenantStatus: undefined });
  });

  it.each([
    [{ code: 'TS-SUSPENDED', error: 'service fetcher is suspended for this tenant', status: 'suspended' }, 'tenant_suspended', 'suspended'],
    [{ status: 'purged' }, 'tenant_purged', 'purged'],
    [{ status: 'frozen' }, 'tenant_suspended', 'frozen'],
  ])('maps a 403 with a status (%j) to %s', (body, reason, tenantStatus) => {
    expect(failure(connections(answered(403, body)))).toEqual({ reason, category: 'forbidden', breaker: 'success', tenantStatus });
  });

  it.each([['no status', { code: 'x' }], ['an empty status', { status: '' }], ['a non-JSON body', 'Forbidden'], ['a numeric status', { status: 1 }]])(
    'maps a 403 with %s to access_denied', (_, body) => {
      expect(failure(connections(answered(403, body)))).toMatchObject({ reason: 'access_denied', category: 'forbidden', breaker: 'success' });
    },
  );

  it.each([400, 401, 409, 429, 302])('treats %i as unexpected_status without touching the breaker', (status) => {
    expect(failure(connections(answered(status, {})))).toMatchObject({ reason: 'unexpected_status', category: 'internal', breaker: 'neutral' });
  });

  it.each([500, 502, 503])('counts %i as a failure', (status) => {
    expect(failure(connections(answered(status, {})))).toMatchObject({ reason: 'server_error', category: 'unavailable', breaker: 'failure' });
  });

  it('counts no answer and a timeout as failures, keeping the cause out of the message and of inspect()', () => {
    const cause = new Error('connect ECONNREFUSED http://user:secret@tm.internal');
    const refused = connections({ kind: 'failed', timedOut: false, cause });
    expect(failure(refused)).toMatchObject({ reason: 'unreachable', category: 'unavailable', breaker: 'failure' });
    const error = (refused as { error: TenantManagerError }).error;
    expect(error.cause).toBe(cause);
    expect(`${error.message} ${inspect(error)} ${JSON.stringify(error)}`).not.toContain('secret');
    expect(failure(connections({ kind: 'failed', timedOut: true, cause }))).toMatchObject({ reason: 'timeout', breaker: 'failure' });
  });

  it('carries the tenant and service on every error', () => {
    const result = connections(answered(404, {}));
    expect(result.ok ? undefined : result.error).toMatchObject({ tenantId: 'acme', service: 'fetcher', httpStatus: 404, message: 'tenant not found' });
  });
});

describe(classifyActiveTenants.name, () => {
  it('parses a bare array and reads null as an empty list', () => {
    expect(active(answered(200, [{ id: 't1', name: 'T1', status: 'active', extra: 1 }]))).toEqual({ ok: true, breaker: 'success', value: [{ id: 't1', name: 'T1', status: 'active' }] });
    expect(active(answered(200, null))).toEqual({ ok: true, breaker: 'success', value: [] });
  });

  it('refuses an object wrapper', () => {
    expect(failure(active(answered(200, { items: [] })))).toMatchObject({ reason: 'bad_response', breaker: 'neutral' });
  });

  it.each([403, 404, 401])('treats %i as unexpected_status counted as a success', (status) => {
    expect(failure(active(answered(status, {})))).toMatchObject({ reason: 'unexpected_status', breaker: 'success' });
  });

  it('counts 5xx as a failure', () => {
    expect(failure(active(answered(503, {})))).toMatchObject({ reason: 'server_error', breaker: 'failure' });
  });
});
