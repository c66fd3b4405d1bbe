/** The API's shapes as the console reads them (docs/api.md); only the fields the pages use. */

export type JobStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'canceled';
export const JOB_STATUSES: readonly JobStatus[] = ['pending', 'processing', 'completed', 'failed', 'canceled'];

/** datasource → table → fields */
export type MappedFields = Record<string, Record<string, string[]>>;
/** datasource → table → field → operator → values */
export type Filters = Record<string, Record<string, Record<string, Record<string, unknown[]>>>>;

export interface Job {
  readonly id: string;
  readonly status: JobStatus;
  readonly metadata?: Record<string, unknown>;
  readonly mappedFields: MappedFields;
  readonly filters?: Filters;
  readonly resultPath?: string;
  readonly resultHmac?: string;
  /** Completed jobs: the document's size before encryption and its rows, in all and per datasource. */
  readonly resultStats?: { readonly sizeBytes: number; readonly rowCount: number; readonly rowCounts: Readonly<Record<string, number>> };
  readonly createdAt: string;
  readonly completedAt?: string;
  readonly progress?: { readonly tablesDone: number; readonly rowsSoFar: number };
  readonly cancelRequestedAt?: string;
  readonly retryOf?: string;
  readonly retriedBy?: string;
}

export interface JobPage {
  readonly items: readonly Job[];
  readonly nextCursor?: string;
}

export const CONNECTION_TYPES = ['POSTGRESQL', 'MYSQL', 'SQL_SERVER', 'ORACLE', 'MONGODB'] as const;
export type ConnectionType = (typeof CONNECTION_TYPES)[number];

export interface Connection {
  readonly id: string;
  readonly productName?: string;
  readonly configName: string;
  readonly type: ConnectionType;
  readonly host: string;
  readonly port: number;
  readonly databaseName: string;
  readonly schema?: string;
  readonly userName: string;
  readonly ssl?: { readonly mode?: string };
  readonly createdAt: string;
}

export interface ConnectionPage {
  readonly items: readonly Connection[];
  readonly page: number;
  readonly limit: number;
  readonly total: number;
}

export interface TestResult {
  readonly status: string;
  readonly message: string;
  readonly latencyMs: number;
}

export interface Schema {
  readonly configName: string;
  readonly databaseName: string;
  readonly type: ConnectionType;
  readonly tables: readonly SchemaTable[];
}

/** A column's type as the connectors classify it (`kind`) and as the database names it (`type`). */
export interface SchemaColumn {
  readonly name: string;
  readonly kind: string;
  readonly type: string;
}

export interface SchemaTable {
  readonly name: string;
  readonly fields: readonly string[];
  /** Present when the connector reports column types. */
  readonly columns?: readonly SchemaColumn[];
}

/** Any error body the API sends; which fields are present depends on the shape (docs/api.md, "Error bodies"). */
export interface ErrorBody {
  readonly code?: string | number;
  readonly title?: string;
  readonly message?: string;
  readonly reason?: string;
  readonly field?: string;
  readonly fields?: Record<string, string>;
  readonly errors?: readonly { readonly type?: string; readonly dataSourceId?: string; readonly table?: string; readonly field?: string; readonly message?: string }[];
}
