import type { StoredConnection } from '@fetcher/contracts';
import type { TenantContext } from '@fetcher/engine';

/** A stored (non-internal) connection, secrets encrypted: the record of the shared `connection` document codec. */
export type { StoredConnection, StoredSsl } from '@fetcher/contracts';

export interface ConnectionListFilter {
  readonly productName?: string;
  readonly type?: string;
  readonly host?: string;
  readonly databaseName?: string;
  /** `metadata.<key>` -> exact string. Keys never contain `$` (the HTTP layer refuses them). */
  readonly metadata?: Readonly<Record<string, string>>;
  /** Only connections without a product (empty, null or missing). */
  readonly unassignedOnly?: boolean;
  /** `created_at >= from` and `created_at < before`. */
  readonly createdFrom?: Date;
  readonly createdBefore?: Date;
}

export interface ConnectionListQuery {
  readonly filter: ConnectionListFilter;
  readonly page: number;
  readonly limit: number;
  readonly sortOrder: 'asc' | 'desc';
}

/**
 * The `connection` collection. Every read and write filters on live records (`deleted_at: null`).
 * Failures are AppErrors already: unreachable store 503/FET-0003, a config-name clash
 * 409/FET-1002, anything else 500/FET-0002.
 */
export interface ConnectionRepository {
  /** MUST throw 409/FET-1002 when a live record has the same config name (the unique index is the backstop). */
  insert(tenant: TenantContext, connection: StoredConnection): Promise<void>;
  findLiveById(tenant: TenantContext, id: string): Promise<StoredConnection | undefined>;
  findLiveByName(tenant: TenantContext, configName: string): Promise<StoredConnection | undefined>;
  /** Replaces a live record; false when it is gone (deleted in between). */
  replace(tenant: TenantContext, connection: StoredConnection): Promise<boolean>;
  /** Sets `deleted_at = updated_at = now` on a live record; false when none matched. */
  softDelete(tenant: TenantContext, id: string, now: Date): Promise<boolean>;
  /** Atomic: only a live record without a product gets one; undefined when nothing matched. */
  assignProduct(tenant: TenantContext, id: string, productName: string, now: Date): Promise<StoredConnection | undefined>;
  list(tenant: TenantContext, query: ConnectionListQuery): Promise<{ items: StoredConnection[]; total: number }>;
}

export const CONNECTION_REPOSITORY = Symbol('ConnectionRepository');
