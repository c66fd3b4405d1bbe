import type { ConnectionDescriptor } from '@fetcher/engine';

/** A datasource ready to dial: its decrypted credentials travel only in `descriptor.secrets`. */
export interface ResolvedConnection {
  readonly descriptor: ConnectionDescriptor;
  /** Operator-configured: exempt from host safety. */
  readonly internal: boolean;
  /** Every decrypted secret, so error texts can be scrubbed of them. */
  readonly secretValues: readonly string[];
  /** The product that owns a stored connection (empty: unassigned); internal datasources have none. */
  readonly productName?: string;
}

/**
 * Resolves config names to connections: internal datasources first, then live stored connections.
 * Unknown names are left out (the planner reports them). Secrets MUST stay in memory. Stored
 * connections carry their product, which the job handler checks against the job's.
 */
export interface ConnectionResolver {
  resolve(names: readonly string[]): Promise<ResolvedConnection[]>;
}
export const CONNECTION_RESOLVER = Symbol('ConnectionResolver');
