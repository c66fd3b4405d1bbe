import { join } from 'node:path';

/**
 * The standalone service's data directory, as far as result tools read it. The standalone app writes
 * the same layout; its integration tests run this CLI against a directory it produced, so a change on
 * either side fails there.
 */
export const DATA_DIR_LAYOUT = Object.freeze({
  /** The generated master key: standard base64 and a newline, mode 0600. */
  masterKeyFile: 'master.key',
  /** Objects, at their physical key below this directory. */
  objectsDir: 'objects',
  /** One JSON document per job, `<jobId>.json`, with `resultPath` and `resultHmac` once completed. */
  jobsDir: 'jobs',
});

export const masterKeyPath = (dataDir: string): string => join(dataDir, DATA_DIR_LAYOUT.masterKeyFile);
export const jobRecordPath = (dataDir: string, jobId: string): string => join(dataDir, DATA_DIR_LAYOUT.jobsDir, `${jobId}.json`);
export const objectsRoot = (dataDir: string): string => join(dataDir, DATA_DIR_LAYOUT.objectsDir);

/** The object key a result is stored under, as the Worker builds it (before any storage prefix). */
export function resultKey(jobId: string, tenantId?: string): string {
  return tenantId ? `${tenantId}/external-data/${jobId}.json` : `external-data/${jobId}.json`;
}
