import { canonicalJson } from '@fetcher/platform';
import type { Job } from './job';

/**
 * The body of the message that asks the Worker to run a job: `createdAt`, `filters` (only when
 * there are some), `jobId`, `mappedFields`, `metadata`, in that (sorted) key order and without
 * whitespace. The Worker signs nothing back from it, but it verifies our HMAC over these exact
 * bytes, so they are built once per publish and never re-serialised.
 */
export function extractionRequestedBody(job: Job): Buffer {
  const body: Record<string, unknown> = {
    createdAt: job.createdAt.toISOString(),
    jobId: job.id,
    mappedFields: job.mappedFields,
    metadata: job.metadata,
  };
  if (job.filters && Object.keys(job.filters).length > 0) body.filters = job.filters;
  return Buffer.from(canonicalJson(body), 'utf8');
}
