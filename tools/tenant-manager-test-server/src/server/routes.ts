import { parseTenantRecord, type TenantRecord, TenantsFileError } from '../tenants-file';

/** What a route answers: a status and a JSON body (none for 204). */
export interface Answer {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The tenants the server serves, changed at runtime by the test routes. */
export interface TenantStore {
  get(id: string): TenantRecord | undefined;
  entries(): Iterable<[string, TenantRecord]>;
  put(id: string, record: TenantRecord): 'created' | 'replaced';
  delete(id: string): boolean;
}

export interface RouteRequest {
  readonly method: string;
  /** Path segments, percent-decoded. */
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
  /** The request body, read only for the test routes. */
  readonly body: () => Promise<unknown>;
}

const error = (status: number, code: string, message: string, extra: Record<string, unknown> = {}): Answer =>
  ({ status, body: { code, error: message, ...extra } });

/**
 * Routes an authenticated request. The tenant-manager's two read endpoints behave as its Go client
 * expects them to; `/_test/tenants/<id>` lets a test or an operator change a tenant while running.
 */
export async function route(request: RouteRequest, tenants: TenantStore): Promise<Answer> {
  const [root, ...rest] = request.segments;
  if (root === 'v1' && rest[0] === 'tenants') {
    if (request.method !== 'GET') return { ...error(405, 'TS-METHOD-NOT-ALLOWED', 'only GET is served'), headers: { Allow: 'GET' } };
    if (rest.length === 2 && rest[1] === 'active') return activeTenants(request.query, tenants);
    if (rest.length === 5 && rest[2] === 'associations' && rest[4] === 'connections') return connections(rest[1], rest[3], tenants);
  }
  if (root === '_test' && rest[0] === 'tenants' && rest.length === 2) return testTenant(request, rest[1], tenants);
  return error(404, 'TS-ROUTE-NOT-FOUND', 'no such route');
}

/** A bare array, as the client requires; only active tenants associated with the service. */
function activeTenants(query: URLSearchParams, tenants: TenantStore): Answer {
  const service = query.get('service');
  if (!service) return error(400, 'TS-BAD-REQUEST', 'the service query parameter is required');
  const list = [];
  for (const [id, tenant] of tenants.entries()) {
    if (tenant.status === 'active' && Object.hasOwn(tenant.services, service)) list.push({ id, name: tenant.name, status: tenant.status });
  }
  return { status: 200, body: list };
}

/**
 * The tenant's config for one service. A suspended or purged tenant answers 403 with `status`, which
 * the client turns into its suspended/purged error; an unknown tenant or service answers 404.
 */
function connections(tenantId: string, service: string, tenants: TenantStore): Answer {
  const tenant = tenants.get(tenantId);
  if (!tenant) return error(404, 'TS-NOT-FOUND', 'tenant not found');
  if (tenant.status !== 'active') {
    return error(403, `TS-${tenant.status.toUpperCase()}`, `service ${service} is ${tenant.status} for this tenant`, { status: tenant.status });
  }
  const config = Object.hasOwn(tenant.services, service) ? tenant.services[service] : undefined;
  if (!config) return error(404, 'TS-NOT-FOUND', `tenant has no association with service ${service}`);
  return { status: 200, body: config };
}

async function testTenant(request: RouteRequest, tenantId: string, tenants: TenantStore): Promise<Answer> {
  if (request.method === 'DELETE') {
    return tenants.delete(tenantId) ? { status: 204 } : error(404, 'TS-NOT-FOUND', 'tenant not found');
  }
  if (request.method !== 'PUT') return { ...error(405, 'TS-METHOD-NOT-ALLOWED', 'use PUT or DELETE'), headers: { Allow: 'PUT, DELETE' } };
  let record: TenantRecord;
  try {
    record = parseTenantRecord(await request.body(), 'body');
  } catch (cause) {
    if (cause instanceof TenantsFileError) return error(400, 'TS-BAD-REQUEST', cause.message);
    throw cause;
  }
  const outcome = tenants.put(tenantId, record);
  return { status: outcome === 'created' ? 201 : 200, body: { id: tenantId, ...record } };
}
