import {
  type ConnectionDescriptor,
  type Connector,
  type ConnectorFactory,
  type ConnectorRegistry,
  type CursorItem,
  type QueryRequest,
  ReadOnlyConnectionStore,
  type RowCursor,
  type SchemaSnapshot,
  type TenantContext,
  isEncodedRows,
} from '@fetcher/engine';
import { type Telemetry, traced } from '@fetcher/platform';
import { BusySpan } from './busy-span';
import type { ConnectorCache } from './connector-cache';

/** Where a job's connectors come from and go back to between jobs; absent, each job dials its own. */
export interface ConnectorReuse {
  readonly cache: ConnectorCache;
  readonly tenantId: string;
}

/** Rows and finished tables seen so far, for the job's progress. */
export class ProgressCounter {
  rows = 0;
  tablesDone = 0;
}

/**
 * The connectors of one job: one real connector per datasource, shared by planning and execution
 * (the engine closes what it builds, so it receives a handle whose close does nothing), and released
 * by `closeAll()` when the job ends. With reuse, `prepare()` first takes connectors kept from earlier
 * jobs of the same connections, and `closeAll(true)` (a job that succeeded) gives them back; any other
 * end closes them. Also the job's read-only connection store.
 */
export class JobConnectors extends ReadOnlyConnectionStore implements ConnectorRegistry {
  readonly progress = new ProgressCounter();
  readonly #byName = new Map<string, ConnectionDescriptor>();
  readonly #built = new Map<string, Connector>();

  constructor(
    private readonly registry: ConnectorRegistry,
    descriptors: readonly ConnectionDescriptor[],
    /** Spans for the connector's steps (schema with the first dial, query, reads); null when tracing is off. */
    private readonly telemetry: Telemetry | null = null,
    private readonly reuse: ConnectorReuse | null = null,
  ) {
    super('the worker does not change connections');
    for (const d of descriptors) this.#byName.set(d.configName, d);
  }

  /** Takes the kept connectors of this job's connections, if any (each rechecked and pinged by the cache). */
  async prepare(signal: AbortSignal): Promise<void> {
    const reuse = this.reuse;
    if (!reuse?.cache.enabled) return;
    await traced(this.telemetry, 'connector.reuse', {}, async () => {
      for (const d of this.#byName.values()) {
        const kept = await reuse.cache.take(reuse.tenantId, d, signal);
        if (kept) this.#built.set(d.configName, kept);
      }
    });
  }

  connector(type: string): ConnectorFactory | undefined {
    const factory = this.registry.connector(type);
    if (!factory) return undefined;
    return {
      build: (descriptor: ConnectionDescriptor): Connector => {
        let real = this.#built.get(descriptor.configName);
        if (!real) {
          real = factory.build(descriptor);
          this.#built.set(descriptor.configName, real);
        }
        return new SharedConnector(real, this.progress, this.telemetry);
      },
    };
  }

  /**
   * Ends the job's use of its connectors. `keep` (only for a job that succeeded: every cursor closed,
   * nothing aborted) gives them to the cache for the next job; otherwise, or without reuse, they are
   * closed, so a canceled or failed job never leaves a connection behind.
   */
  async closeAll(keep = false): Promise<void> {
    const built = [...this.#built.entries()];
    this.#built.clear();
    const reuse = this.reuse;
    if (keep && reuse) {
      await Promise.allSettled(
        built.map(([name, c]) => {
          const descriptor = this.#byName.get(name);
          return descriptor ? reuse.cache.give(reuse.tenantId, descriptor, c) : c.close();
        }),
      );
      return;
    }
    await Promise.allSettled(built.map(([, c]) => c.close()));
  }

  findConnection(_tenant: TenantContext, configName: string): Promise<ConnectionDescriptor | undefined> {
    return Promise.resolve(this.#byName.get(configName));
  }

  list(): Promise<readonly ConnectionDescriptor[]> {
    return Promise.resolve([...this.#byName.values()]);
  }

  findById(_tenant: TenantContext, id: string): Promise<ConnectionDescriptor | undefined> {
    return Promise.resolve([...this.#byName.values()].find((d) => d.id === id));
  }
}

class SharedConnector implements Connector {
  constructor(
    private readonly real: Connector,
    private readonly progress: ProgressCounter,
    private readonly telemetry: Telemetry | null,
  ) {}

  /** The real connector's capability: without it the engine would refuse every incremental step here. */
  get supportsIncremental(): boolean {
    return this.real.supportsIncremental === true;
  }

  testConnection(signal: AbortSignal): Promise<void> {
    return this.real.testConnection(signal);
  }

  /** The first call of a job also dials (the pool connects on first use), so its span holds the connect. */
  discoverSchema(signal: AbortSignal): Promise<SchemaSnapshot> {
    return traced(this.telemetry, 'connector.schema', {}, () => this.real.discoverSchema(signal));
  }

  async queryStream(request: QueryRequest, signal: AbortSignal): Promise<RowCursor> {
    const cursor = await traced(this.telemetry, 'connector.query', {}, () => this.real.queryStream(request, signal));
    return new CountingCursor(cursor, Object.keys(request.tables).length, this.progress, new BusySpan(this.telemetry, 'connector.read'));
  }

  /** The job closes the real connector once, when it ends. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}

class CountingCursor implements RowCursor {
  #table: string | undefined;
  #done = 0;

  constructor(
    private readonly inner: RowCursor,
    private readonly tables: number,
    private readonly progress: ProgressCounter,
    private readonly reads: BusySpan,
  ) {}

  async next(): Promise<CursorItem | null> {
    const item = await this.reads.timeAsync(() => this.inner.next());
    if (item === null) {
      this.progress.tablesDone += this.tables - this.#done;
      this.#done = this.tables;
      return null;
    }
    if (this.#table !== undefined && this.#table !== item.table) {
      this.#done++;
      this.progress.tablesDone++;
    }
    this.#table = item.table;
    this.progress.rows += isEncodedRows(item) ? item.rowCount : 1;
    return item;
  }

  close(): Promise<void> {
    this.reads.end();
    return this.inner.close();
  }
}
