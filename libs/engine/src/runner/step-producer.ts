/**
 * One plan step (spec B11 step 7): find the connection, build and test the connector, open the
 * cursor, encode its rows in batches into the step's slot. The cursor and then the connector are
 * closed on every path.
 */
import { EngineError, ErrorText } from '../errors';
import type { TenantContext } from '../models';
import type { Connector, ConnectorRegistry, CursorItem, RowCursor } from '../ports';
import { ConfigFragmentEncoder } from '../canonical/fragment-encoder';
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

  constructor(env: StepEnvironment, step: RunnableStep, slot: ChunkSlot) {
    this.#env = env;
    this.#step = step;
    this.#slot = slot;
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
      throw new EngineError('unavailable', ErrorText.connectFailed, error);
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

  async #pump(cursor: RowCursor): Promise<void> {
    const { deadline } = this.#env;
    const signal = deadline.signal;
    const encoder = new ConfigFragmentEncoder(this.#step.configName, this.#step.tables, { leadingComma: this.#step.ordinal > 0 });
    for (;;) {
      let item: CursorItem | null | undefined;
      try {
        // Raced, so a cursor that ignores the signal cannot hold the run past its deadline.
        item = await deadline.race(Promise.resolve(cursor.next()));
      } catch (error) {
        throw this.#queryError(error);
      }
      if (item === null || item === undefined) break;
      const chunk = encoder.push(item);
      if (chunk) await this.#slot.put(chunk, signal);
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
