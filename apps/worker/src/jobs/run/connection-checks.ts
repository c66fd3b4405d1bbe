import { type ConnectionDescriptor, withConnectionSecrets } from '@fetcher/engine';
import type { ResolvedConnection } from '../../ports/connection-resolver.port';
import { JobFailure } from '../error-text';
import { schemaScope } from '../extraction-request';

/**
 * Every stored connection a job uses must belong to the job's product (`metadata.source`, compared
 * case-sensitively, as the Manager does when it accepts the job); internal datasources belong to
 * every product. Checked before anything is dialled, so a connection that changed hands since (deleted
 * and recreated under the same name by another product) is never read for this job.
 */
export function checkOwnership(resolved: readonly ResolvedConnection[], source: unknown): void {
  const product = typeof source === 'string' ? source : '';
  for (const connection of resolved) {
    if (connection.internal) continue;
    const name = connection.descriptor.configName;
    if (!connection.productName) throw new JobFailure(`FET-1014: Connection '${name}' has no product assigned`, false);
    if (connection.productName !== product) {
      throw new JobFailure(`FET-1016: Connection '${name}' does not belong to the product identified by source '${product}'`, false);
    }
  }
}

/** The descriptor with the job's schema scope added to its (non-secret) host attributes. */
export function scoped(descriptor: ConnectionDescriptor, rawKeys: readonly string[]): ConnectionDescriptor {
  const hostAttributes = { ...(descriptor.hostAttributes ?? {}), schemaScope: schemaScope(descriptor.type, rawKeys) };
  return withConnectionSecrets({ ...descriptor, hostAttributes }, descriptor.secrets);
}
