/** What a template connector does. Every build copies it into a fresh connector. */
import type { QueryRequest, Row, SchemaSnapshot } from '../models';

export interface ConnectorBehavior {
  /** table -> rows. Queries see a defensive copy, projected to the requested fields. */
  rows?: Readonly<Record<string, readonly Row[]>>;
  /** Returned by discoverSchema; derived from `rows` (fields and kinds) when absent. */
  schema?: SchemaSnapshot;
  /** Thrown by testConnection. */
  testErr?: Error;
  /** Thrown by discoverSchema (an addition to the original knobs). */
  discoverErr?: Error;
  /** Thrown by queryStream. */
  queryErr?: Error;
  /** Thrown by close (after counting the call). */
  closeErr?: Error;
  /** discoverSchema and queryStream wait until the signal aborts, then reject with its reason. */
  blockOnSignal?: boolean;
  /** Rows produced on demand per table (e.g. a generator), instead of `rows`; undefined falls back. */
  largeRowFactory?: (table: string) => Iterable<Row> | undefined;
  /** Runs after queryStream has opened its cursor; queryStream waits for it (and fails with it). */
  afterQuery?: (request: QueryRequest, signal: AbortSignal) => void | Promise<void>;
  /** Thrown by the cursor's next() once `streamFailAfter` rows were delivered. */
  streamRowErr?: Error;
  streamFailAfter?: number;
  /** `false`: the connector does not declare `supportsIncremental` (default: it does). */
  supportsIncremental?: boolean;
  /** Hand rows over pre-encoded (CursorEncodedRows), this many rows per item (an addition). */
  encodedBatchRows?: number;
}

export function cloneBehavior(behavior: ConnectorBehavior): ConnectorBehavior {
  const copy: ConnectorBehavior = { ...behavior };
  if (behavior.rows) {
    copy.rows = Object.fromEntries(Object.entries(behavior.rows).map(([table, rows]) => [table, [...rows]]));
  }
  return copy;
}
