/** The job as the Manager sees it: the request it was created from plus its lifecycle fields. */
export type JobStatus = 'pending' | 'processing' | 'completed' | 'failed';

/** datasource -> table -> fields, as submitted. */
export type MappedFields = Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
/** datasource -> table -> field -> operator -> values, after the clean-up of unknown operators and empty lists. */
export type JobFilters = Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, FilterCondition>>>>>>;
export type FilterCondition = Readonly<Partial<Record<FilterOperator, readonly unknown[]>>>;
export type FilterOperator = 'eq' | 'gt' | 'gte' | 'lt' | 'lte' | 'between' | 'in' | 'nin' | 'ne' | 'like';
export const FILTER_OPERATORS: readonly FilterOperator[] = Object.freeze(['eq', 'gt', 'gte', 'lt', 'lte', 'between', 'in', 'nin', 'ne', 'like']);

export type JobMetadata = Readonly<Record<string, unknown>>;

/** What the Worker reports while it runs a job. */
export interface JobProgress {
  readonly tablesDone: number;
  readonly rowsSoFar: number;
  readonly updatedAt?: Date;
}

export interface Job {
  readonly id: string;
  readonly status: JobStatus;
  readonly mappedFields: MappedFields;
  /** Absent when the request had none left after the clean-up. */
  readonly filters?: JobFilters;
  readonly metadata: JobMetadata;
  readonly requestHash: string;
  readonly createdAt: Date;
  readonly completedAt: Date | null;
  readonly resultPath?: string;
  readonly resultHmac?: string;
  readonly dispatchedAt: Date | null;
  readonly dispatchAttempts: number;
  readonly progress?: JobProgress;
}

/** The error text stored on a job whose message never reached the broker. */
export const PUBLISH_FAILED_ERROR = 'process failed: unable to publish';

export function isActive(status: JobStatus): boolean {
  return status === 'pending' || status === 'processing';
}
