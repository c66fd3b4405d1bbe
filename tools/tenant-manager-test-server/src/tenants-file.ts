import { readFile } from 'node:fs/promises';

/** The statuses a tenant can have in the file. Only `active` tenants are listed or served. */
export const TENANT_STATUSES = ['active', 'suspended', 'purged'] as const;
export type TenantStatus = (typeof TENANT_STATUSES)[number];

/** The body of `/connections`, served as given: the server never interprets it. */
export type TenantConfigBody = Readonly<Record<string, unknown>>;

export interface TenantRecord {
  readonly name: string;
  readonly status: TenantStatus;
  /** Service name (`fetcher`, `ledger`) → the tenant's config for that service. */
  readonly services: Readonly<Record<string, TenantConfigBody>>;
}

export interface TenantsFile {
  /** The only `X-API-Key` value the server accepts. */
  readonly apiKey: string;
  readonly tenants: Readonly<Record<string, TenantRecord>>;
}

/** A tenants file or `PUT /_test/tenants/<id>` body that does not have the documented shape. */
export class TenantsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TenantsFileError';
  }
}

/** Reads and checks a tenants file. Errors name the offending field, never the API key. */
export async function readTenantsFile(path: string): Promise<TenantsFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new TenantsFileError(`cannot read the tenants file ${path}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TenantsFileError(`the tenants file ${path} is not valid JSON`);
  }
  return parseTenantsFile(value);
}

export function parseTenantsFile(value: unknown): TenantsFile {
  const file = objectAt(value, 'the tenants file');
  if (typeof file.apiKey !== 'string' || file.apiKey === '') throw new TenantsFileError('apiKey must be a non-empty string');
  const tenants = objectAt(file.tenants ?? {}, 'tenants');
  const parsed: Record<string, TenantRecord> = {};
  for (const [id, record] of Object.entries(tenants)) {
    if (id === '') throw new TenantsFileError('tenants: a tenant id must not be empty');
    parsed[id] = parseTenantRecord(record, `tenants.${id}`);
  }
  return { apiKey: file.apiKey, tenants: parsed };
}

/** One tenant entry; `where` names it in errors (`tenants.<id>` or `body`). */
export function parseTenantRecord(value: unknown, where: string): TenantRecord {
  const record = objectAt(value, where);
  if (typeof record.name !== 'string') throw new TenantsFileError(`${where}.name must be a string`);
  if (!TENANT_STATUSES.includes(record.status as TenantStatus)) {
    throw new TenantsFileError(`${where}.status must be one of ${TENANT_STATUSES.join(', ')}`);
  }
  const services = objectAt(record.services ?? {}, `${where}.services`);
  const parsed: Record<string, TenantConfigBody> = {};
  for (const [service, config] of Object.entries(services)) parsed[service] = objectAt(config, `${where}.services.${service}`);
  return { name: record.name, status: record.status as TenantStatus, services: parsed };
}

function objectAt(value: unknown, where: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new TenantsFileError(`${where} must be a JSON object`);
  return value as Record<string, unknown>;
}
