/**
 * One plan step: find the connection, build and test the connector, open the
 * cursor, encode its rows in batches into the step's slot. The cursor and then the connector are
 * closed on every path.
 */
import { EngineError, ErrorText, IncrementalText, incrementalText, keptReason } from '../errors';
import type { PositionTracker } from '../incremental/position-tracker';
import { STREAM_BATCH_ROWS, type TenantContext } from '../models';
import type { Connector, ConnectorRegistry, RowCursor } from '../ports';
import { ConfigFragmentEncoder, type EncodedChunk } from '../canonical/fragment-encoder';
import type { StoreAccess } from '../connections/store-access';
import { buildConnector, closeQuietly, resolveFactory } from '../support/connector-access';
import type { Deadline } from '../support/deadline';
import type { ChunkSlot } from './chunk-slot';
import type { RunnableStep } from './plan-reader';

export interface StepEnvironment {
  readonly tenant: TenantContext;
  readonly store: StoreAccess;
  readonly registry: ConnectorRegistry;
  /** Host signal + timeout + the run's fail-fast signal. */
  readonly deadline: Deadline;
}

export class StepProducer {
  readonly #env: StepEnvironment;
  readonly #step: RunnableStep;
  readonly #slot: ChunkSlot;
  readonly #tracker: PositionTracker | undefined;

  constructor(env: StepEnvironment, step: RunnableStep, slot: ChunkSlot, tracker?: PositionTracker) {
    this.#env = env;
    this.#step = step;
    this.#slot = slot;
    this.#tracker = tracker;
  }

  /** Resolves when the step's last chunk is in the slot; rejects with an EngineError otherwise. */
  async run(): Promise<void> {
    try {
      await this.#run();
    } catch (error) {
      if (this.#env.deadline.signal.aborted) throw this.#env.deadline.error();
      // Step 14: an unexpected throw gets a fixed text, never the thrown value.
      throw error instanceof EngineError ? error : new EngineError('internal', ErrorText.stepUnexpected, error);
    }
  }

  async #run(): Promise<void> {
    const { deadline, store, tenant, registry } = this.#env;
    deadline.throwIfAborted();
    const descriptor = await deadline.race(store.find(tenant, this.#step.configName));
    if (!descriptor) throw new EngineError('not_found', ErrorText.connectionNotFound);
    const connector = buildConnector(resolveFactory(registry, descriptor.type), descriptor);
    try {
      await this.#test(connector);
      deadline.throwIfAborted();
      if (this.#step.query.incremental !== undefined && connector.supportsIncremental !== true) {
        throw new EngineError('validation', incrementalText(IncrementalText.unsupported, this.#step.configName));
      }
      const cursor = await this.#open(connector);
      try {
        await this.#pump(cursor);
      } finally {
        await closeQuietly(cursor);
      }
    } finally {
      await closeQuietly(connector);
    }
  }

  async #test(connector: Connector): Promise<void> {
    const { deadline } = this.#env;
    try {
      await deadline.race(Promise.resolve(connector.testConnection(deadline.signal)));
    } catch (error) {
      if (deadline.signal.aborted) throw deadline.error();
      throw new EngineError('unavailable', ErrorText.connectFailed, error, keptReason(error));
    }
  }

  async #open(connector: Connector): Promise<RowCursor> {
    const { deadline } = this.#env;
    let cursor: unknown;
    try {
      const opening = Promise.resolve(connector.queryStream(this.#step.query, deadline.signal));
      cursor = await deadline.race(opening, (late) => void closeQuietly(late));
    } catch (error) {
      throw this.#queryError(error);
    }
    const c = cursor as Partial<RowCursor> | null;
    if (typeof c !== 'object' || c === null || typeof c.next !== 'function' || typeof c.close !== 'function') {
      throw new EngineError('internal', ErrorText.stepUnexpected);
    }
    return cursor as RowCursor;
  }

  /**
   * Reads and encodes the cursor one batch at a time. The deadline is checked once per batch (the
   * whole batch read is raced against it), not once per row: a cursor that ignores the signal
   * still cannot hold the run past its deadline, and a million rows cost a few thousand races
   * instead of a million.
   */
  async #pump(cursor: RowCursor): Promise<void> {
    const { deadline } = this.#env;
    const signal = deadline.signal;
    const encoder = new ConfigFragmentEncoder(this.#step.configName, this.#step.tables, { leadingComma: this.#step.ordinal > 0 });
    for (;;) {
      let batch: Batch;
      try {
        batch = await deadline.race(readBatch(cursor, encoder, signal, this.#tracker));
      } catch (error) {
        throw this.#queryError(error);
      }
      deadline.throwIfAborted();
      if (batch.encodeError !== undefined) throw batch.encodeError;
      if (batch.chunk) await this.#slot.put(batch.chunk, signal);
      if (batch.done) break;
    }
    await this.#slot.put(encoder.finish(), signal);
    this.#slot.end();
  }

  /**
   * The abort error when the run is ending; a connector's validation error passes through (the
   * documented "like requires a text column: <path>"); anything else is the fixed query failure.
   */
  #queryError(error: unknown): EngineError {
    const { deadline } = this.#env;
    if (deadline.signal.aborted) return deadline.error();
    if (error instanceof EngineError && error.category === 'validation') return error;
    return new EngineError('unavailable', ErrorText.queryFailed, error);
  }
}

/** One batch: the chunk it completed (if any), whether the cursor ended, or the encoder's refusal. */
interface Batch {
  readonly chunk?: EncodedChunk;
  readonly done: boolean;
  /** The encoder or the position tracker refused an item (the connector broke a contract): not a query failure. */
  readonly encodeError?: Error;
}

/**
 * Pulls items until the encoder completes a chunk (at most STREAM_BATCH_ROWS rows) or the cursor
 * ends. Stops early once the signal has aborted, so an abandoned read stops pulling rows.
 */
async function readBatch(cursor: RowCursor, encoder: ConfigFragmentEncoder, signal: AbortSignal, tracker?: PositionTracker): Promise<Batch> {
  for (let read = 0; read < STREAM_BATCH_ROWS; read++) {
    const item = await cursor.next();
    if (item === null || item === undefined) return { done: true };
    if (signal.aborted) return { done: true };
    let chunk: EncodedChunk | undefined;
    try {
      tracker?.observe(item);
      chunk = encoder.push(item);
    } catch (error) {
      return { done: true, encodeError: error instanceof Error ? error : new Error('encoding failed', { cause: error }) };
    }
    if (chunk) return { chunk, done: false };
  }
  return { done: false };
}
