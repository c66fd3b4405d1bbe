import { canonicalJson, sha256Hex } from '@fetcher/platform';
import type { MappedFields } from '@fetcher/engine';
import type { JobFilters, JobMetadata } from './job';

/**
 * The deduplication key of a job request: the hex SHA-256 of the canonical JSON of the request
 * after the filter clean-up. Empty filters and metadata are left out, so `{}` and an absent
 * value hash alike; metadata takes part, so two requests with different correlation ids are
 * two jobs. The incremental parameters take part too (only when given, so other requests hash as
 * before): two jobs of a chain differ in `after`, and must never be answered with each other.
 */
export function requestHash(request: { mappedFields: MappedFields; filters?: JobFilters; incremental?: Readonly<Record<string, unknown>>; metadata?: JobMetadata }): string {
  const dataRequest: Record<string, unknown> = { mappedFields: request.mappedFields };
  if (request.filters && Object.keys(request.filters).length > 0) dataRequest.filters = request.filters;
  if (request.incremental && Object.keys(request.incremental).length > 0) dataRequest.incremental = request.incremental;
  const input: Record<string, unknown> = { dataRequest };
  if (request.metadata && Object.keys(request.metadata).length > 0) input.metadata = request.metadata;
  return sha256Hex(canonicalJson(input));
}
