/** The Worker's business codes. Every failure with one of these is final: retrying cannot help. */
export const WorkerCodes = {
  nullPayload: { code: 'FET-0050', message: 'message payload is null' },
  invalidJobId: { code: 'FET-0051', message: 'message has no valid job id' },
  emptyMappedFields: { code: 'FET-0052', message: 'mappedFields cannot be empty' },
  datasourceWithoutTables: { code: 'FET-0053', message: 'datasource has no tables' },
  storageKeyMissing: { code: 'FET-0056', message: 'storage encryption key not configured' },
  eventSerialisation: { code: 'FET-0060', message: 'job event could not be serialised' },
  hmacFailed: { code: 'FET-0061', message: 'result HMAC could not be computed' },
  cipherInit: { code: 'FET-0062', message: 'result cipher could not be initialised' },
  encryptionFailed: { code: 'FET-0063', message: 'result encryption failed' },
  tenantWithSlash: { code: 'FET-0066', message: 'tenant id is not valid in an object key' },
  jobNotFound: { code: 'FET-0067', message: 'job not found' },
} as const;

export type WorkerCode = (typeof WorkerCodes)[keyof typeof WorkerCodes]['code'];

/** FET-0067 is the one code that is worth another delivery (the job may not be visible yet). */
const RETRYABLE: ReadonlySet<WorkerCode> = new Set(['FET-0067']);

/** A failure with a Worker business code; its text is fixed and never quotes input or secrets. */
export class WorkerError extends Error {
  readonly code: WorkerCode;

  constructor(entry: { readonly code: WorkerCode; readonly message: string }, options?: { cause?: unknown }) {
    super(entry.message, options);
    this.name = 'WorkerError';
    this.code = entry.code;
  }

  get retryable(): boolean {
    return RETRYABLE.has(this.code);
  }

  /** The text stored in `metadata.error` and sent in `job.failed`. */
  render(): string {
    return `${this.code}: ${this.message}`;
  }
}
