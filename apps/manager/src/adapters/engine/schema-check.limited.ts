import { EngineError, type TenantContext } from '@fetcher/engine';
import type { ResolvedConnection } from '../../ports/connection-resolver.port';
import type { SchemaCheck, SchemaProblem } from '../../ports/schema-check.port';
import { dialSlotKey } from './connectivity-check.limited';
import type { KeyedSemaphore } from './keyed-semaphore';

/** How long a schema check waits for a dial slot before it gives up (a `timeout`, which callers treat as "could not check"). */
export const SCHEMA_SLOT_WAIT_MS = 10_000;

/**
 * Takes one of the connection's dial slots (the semaphore the job-creation dial uses) for each
 * check: a schema discovery is a dial too, so a burst of job requests or validations stays within
 * the same few connections to the customer's server.
 */
export class LimitedSchemaCheck implements SchemaCheck {
  constructor(
    private readonly inner: SchemaCheck,
    private readonly slots: KeyedSemaphore,
    private readonly waitMs = SCHEMA_SLOT_WAIT_MS,
  ) {}

  async check(
    tenant: TenantContext,
    connection: ResolvedConnection,
    tables: ReadonlyMap<string, readonly string[]>,
    signal?: AbortSignal,
    incremental?: Readonly<Record<string, unknown>>,
    filterFields?: ReadonlyMap<string, readonly string[]>,
  ): Promise<SchemaProblem[]> {
    const release = await this.slots.acquire(dialSlotKey(tenant, connection), this.waitMs);
    if (!release) throw new EngineError('timeout', 'no dial slot came free for the schema check');
    try {
      return await this.inner.check(tenant, connection, tables, signal, incremental, filterFields);
    } finally {
      release();
    }
  }
}
