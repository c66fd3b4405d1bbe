/**
 * The runner. Steps run in parallel inside an ordinal window; each fills a one-chunk
 * slot that the single ordered writer drains. The first error aborts everything, every step is
 * joined and every connector closed before the call settles, and no partial result is returned.
 */
import { EngineError, ErrorText } from '../errors';
import type { CursorPosition, ExecutionState, ExtractionResult, ResultReference } from '../models';
import { PositionTracker } from '../incremental/position-tracker';
import { setOwn } from '../support/guards';
import type { ResultWriter } from '../ports';
import { requireStore, type EngineContext } from '../engine-context';
import { Deadline } from '../support/deadline';
import { ChunkSlot } from './chunk-slot';
import { DirectTarget } from './direct-target';
import { ExecutionRecorder } from './execution-recorder';
import { FailureLatch } from './failure-latch';
import { runInOrdinalWindow } from './ordinal-window';
import { OrderedWriter } from './ordered-writer';
import { readPlan, type RunnablePlan } from './plan-reader';
import { directResult, storedReference, type Streamed } from './result-builder';
import { SinkTarget } from './sink-target';
import { StepProducer } from './step-producer';

export class ExtractionRunner {
  readonly #context: EngineContext;
  readonly #recorder: ExecutionRecorder;

  constructor(context: EngineContext) {
    this.#context = context;
    this.#recorder = new ExecutionRecorder(context.executionStore);
  }

  async execute(planValue: unknown, host: AbortSignal | undefined): Promise<ExtractionResult> {
    const store = requireStore(this.#context);
    const plan = readPlan(planValue, this.#context.limits);
    const mode = this.#mode(plan);
    const latch = new FailureLatch();
    const deadline = new Deadline(host, plan.limits.timeoutMs, [latch.signal]);
    const base = { ...(plan.requestId !== undefined ? { jobId: plan.requestId } : {}), startedAt: this.#now() };
    await this.#recorder.save(plan.tenant, { ...base, status: 'running' });
    let sink: SinkTarget | undefined;
    try {
      deadline.throwIfAborted(); // pre-flight
      const target = mode === 'store' ? (sink = await this.#openSink(plan, deadline)) : new DirectTarget();
      const writer = new OrderedWriter(target, plan.limits.maxResultBytes, deadline);
      const trackers = plan.steps.map((step) => PositionTracker.for(step.query));
      await this.#run(plan, store, writer, latch, deadline, trackers);
      const streamed: Streamed = { rows: writer.rows, bytes: writer.bytes, digest: writer.digest(), completedAt: '' };
      const result = await this.#finish(target, sink, { ...streamed, completedAt: this.#now() });
      const state: ExecutionState = { ...base, status: 'completed', completedAt: result.completedAt };
      await this.#recorder.save(plan.tenant, state);
      const cursors = collectCursors(plan, trackers);
      return { state, ...result.payload, rowCounts: writer.rowCounts, ...(cursors ? { cursors } : {}) };
    } catch (thrown) {
      const error = thrown instanceof EngineError ? thrown : new EngineError('internal', ErrorText.stepUnexpected, thrown);
      await sink?.abort(error);
      const status = error.category === 'canceled' ? 'canceled' : 'failed';
      await this.#recorder.save(plan.tenant, { ...base, status, completedAt: this.#now(), failureMessage: error.message });
      throw error;
    }
  }

  #mode(plan: RunnablePlan): 'direct' | 'store' {
    if (plan.mode === 'direct') return 'direct';
    if (plan.mode === 'store' && !this.#context.resultSink) throw new EngineError('validation', ErrorText.storeModeNeedsSink);
    return this.#context.resultSink ? 'store' : 'direct';
  }

  async #openSink(plan: RunnablePlan, deadline: Deadline): Promise<SinkTarget> {
    const sink = this.#context.resultSink!;
    const options = plan.requestId !== undefined ? { requestId: plan.requestId } : {};
    let opened: ResultWriter;
    try {
      const opening = Promise.resolve(sink.openResultStream(plan.tenant, options));
      // A writer that opens after the run gave up is aborted at once, so the sink can clean up.
      opened = await deadline.race(opening, (late) => void abortLate(late, deadline.error()));
    } catch (error) {
      if (deadline.signal.aborted) throw deadline.error();
      throw new EngineError('unavailable', ErrorText.persistFailed, error);
    }
    return new SinkTarget(SinkTarget.check(opened), deadline);
  }

  async #run(
    plan: RunnablePlan,
    store: ReturnType<typeof requireStore>,
    writer: OrderedWriter,
    latch: FailureLatch,
    deadline: Deadline,
    trackers: readonly (PositionTracker | undefined)[],
  ): Promise<void> {
    const env = { tenant: plan.tenant, store, registry: this.#context.registry, deadline };
    const slots = plan.steps.map(() => new ChunkSlot());
    const producing = runInOrdinalWindow(plan.steps.length, plan.limits.maxConcurrency, deadline.signal, (i) =>
      new StepProducer(env, plan.steps[i], slots[i], trackers[i]).run().catch((error: EngineError) => latch.stepFailed(error)),
    );
    const writing = writer.run(plan.steps, slots).catch((error: unknown) => {
      // Once the run is aborting, what the writer saw is that abort, not a failure of its own.
      if (!deadline.signal.aborted) {
        latch.writerFailed(error instanceof EngineError ? error : new EngineError('internal', ErrorText.stepUnexpected, error));
      }
    });
    await Promise.all([producing, writing]);
    // Step 13: a host abort or the deadline fails the run even when no step reported it.
    const error = latch.error ?? (deadline.signal.aborted ? deadline.error() : undefined);
    if (error) throw error;
  }

  async #finish(
    target: DirectTarget | SinkTarget,
    sink: SinkTarget | undefined,
    streamed: Streamed,
  ): Promise<{ completedAt: string; payload: Pick<ExtractionResult, 'direct' | 'reference'> }> {
    if (!sink) {
      const direct = directResult((target as DirectTarget).bytes(), streamed);
      return { completedAt: direct.completedAt, payload: { direct } };
    }
    const reference: ResultReference = storedReference(await sink.close(), streamed);
    return { completedAt: reference.completedAt, payload: { reference } };
  }

  #now(): string {
    return this.#context.clock().toISOString();
  }
}

/** config -> table -> last position, for the steps that read tables incrementally; undefined for none. */
function collectCursors(plan: RunnablePlan, trackers: readonly (PositionTracker | undefined)[]): ExtractionResult['cursors'] {
  const cursors: Record<string, Record<string, CursorPosition | null>> = {};
  plan.steps.forEach((step, i) => {
    const tracker = trackers[i];
    if (tracker) setOwn(cursors, step.configName, tracker.positions());
  });
  return Object.keys(cursors).length > 0 ? cursors : undefined;
}

async function abortLate(writer: unknown, reason: EngineError): Promise<void> {
  try {
    await (writer as ResultWriter).abort(reason);
  } catch {
    // Best-effort, as every abort.
  }
}
