import type { ConnectionDescriptor, TenantContext } from '@fetcher/engine';

/** A datasource name resolved for a job: an operator-configured internal datasource or a live stored connection. */
export interface ResolvedConnection {
  readonly configName: string;
  /** Internal datasources are exempt from product ownership, host safety and the connectivity check. */
  readonly internal: boolean;
  /** `""` for a stored connection no product owns yet; meaningless for internal ones. */
  readonly productName: string;
  /** Ready to dial: decrypted secrets ride on it, non-enumerable. */
  readonly descriptor: ConnectionDescriptor;
}

/**
 * Resolves datasource names: a name that is an internal datasource always resolves to it, any
 * other to the live (not deleted) stored connection with that config name. Names that resolve to
 * nothing are simply absent from the answer; a storage failure rejects.
 */
export interface ConnectionResolver {
  resolve(tenant: TenantContext, names: readonly string[]): Promise<ReadonlyMap<string, ResolvedConnection>>;
}
export const CONNECTION_RESOLVER = Symbol('ConnectionResolver');
