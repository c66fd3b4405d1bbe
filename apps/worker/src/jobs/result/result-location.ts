import { join } from 'node:path';

/** Where a job's result goes: the path the events and the job record name, and the bucket key. */
export interface ResultLocation {
  /** `<tenant>/external-data/<jobId>.json`, without a tenant segment for a delivery that named no tenant. */
  readonly resultPath: string;
  /** `resultPath` under the configured prefix, with no leading slash (S3 keys are not paths). */
  readonly objectKey: string;
}

/**
 * `tenantHeader` is the `X-Tenant-ID` as delivered: empty keeps the single-tenant layout, so results
 * of Workers that predate tenants stay where readers look for them.
 */
export function resultLocation(tenantHeader: string, jobId: string, objectKeyPrefix: string): ResultLocation {
  const resultPath = `${tenantHeader === '' ? '' : `${tenantHeader}/`}external-data/${jobId}.json`;
  return { resultPath, objectKey: `${objectKeyPrefix}${resultPath}`.replace(/^\/+/, '') };
}

/** The spool file of one run: the lease token keeps a takeover from writing into its predecessor's file. */
export function spoolPath(spoolDir: string, jobId: string, leaseToken: string): string {
  return join(spoolDir, `${jobId}-${leaseToken}.b64`);
}
