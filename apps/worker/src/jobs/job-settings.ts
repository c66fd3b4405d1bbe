import type { KeyRing } from '@fetcher/platform';
import type { UploadTuning } from './result/result-uploader';

/** What the job handler needs from the configuration, already parsed. */
export interface JobSettings {
  readonly leaseTtlMs: number;
  /** `<hostname>:<pid>:<random>`: who holds a lease. */
  readonly leaseOwner: string;
  readonly spoolDir: string;
  readonly objectKeyPrefix: string;
  readonly workQueue: string;
  readonly eventsExchange: string;
  readonly eventSource: string;
  readonly maxResultBytes?: number;
  readonly upload: UploadTuning;
  readonly ring: KeyRing;
  /** How often progress is written while a job runs. */
  readonly progressIntervalMs: number;
}
export const JOB_SETTINGS = Symbol('JobSettings');

/** A verified delivery, as the controller hands it over. */
export interface JobDelivery {
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, unknown>>;
  /** `X-Tenant-ID` as delivered, or empty. */
  readonly tenantHeader: string;
  readonly requestId: string;
  readonly receivedAt: Date;
}
