import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';

/**
 * A part of the process that takes in work on its own: a queue consumer, a sweep loop, a second
 * server. `start` resolves once it runs and rejects if it cannot (the process then exits non-zero);
 * `stop` stops intake and resolves once its in-flight work has finished.
 */
export interface Subsystem {
  readonly name: string;
  start(signal: AbortSignal): Promise<void>;
  stop(): Promise<void>;
  /** Bound on `stop`; 30 s when unset. */
  readonly stopTimeoutMs?: number;
}

/** A subsystem failed to start, or failed for good while running. */
export class SubsystemError extends Error {
  constructor(readonly subsystem: string, readonly phase: 'start' | 'run' | 'stop') {
    super(`subsystem ${subsystem} failed to ${phase === 'run' ? 'keep running' : phase}`);
    this.name = 'SubsystemError';
  }
}

type LifecycleEvent = { kind: 'drain' } | { kind: 'fatal'; error: SubsystemError };

/**
 * The process's shared state for startup and drain: the draining flag `/readyz` reports, one abort
 * signal every loop watches, and the registry of subsystems, started in registration order at
 * application bootstrap and stopped in reverse order.
 */
@Injectable()
export class Lifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly #controller = new AbortController();
  readonly #subsystems: Subsystem[] = [];
  readonly #started: Subsystem[] = [];
  readonly #listeners = new Set<(event: LifecycleEvent) => void>();
  #draining = false;
  #phase: 'registering' | 'started' | 'stopping' = 'registering';
  #stopping: Promise<boolean> | undefined;

  get draining(): boolean {
    return this.#draining;
  }

  /** Aborted when the process stops taking in work; long-running loops end on it. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Register during module initialisation (constructor or `onModuleInit`); start happens at bootstrap. */
  register(subsystem: Subsystem): void {
    if (this.#phase !== 'registering') throw new Error(`subsystem ${subsystem.name} registered after startup`);
    this.#subsystems.push(subsystem);
  }

  /** Makes `/readyz` answer 503 from now on. Idempotent. */
  startDrain(): void {
    if (this.#draining) return;
    this.#draining = true;
    this.#emit({ kind: 'drain' });
  }

  /** A running subsystem failed for good: the process must end rather than stay half-healthy. */
  fail(subsystem: string): void {
    this.#emit({ kind: 'fatal', error: new SubsystemError(subsystem, 'run') });
  }

  onEvent(listener: (event: LifecycleEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.#phase = 'started';
    for (const subsystem of this.#subsystems) {
      try {
        await subsystem.start(this.signal);
      } catch {
        await this.stopAll();
        throw new SubsystemError(subsystem.name, 'start');
      }
      this.#started.push(subsystem);
    }
  }

  /**
   * Aborts the shared signal, then stops the started subsystems in reverse order, each within its
   * bound. Resolves true when every one stopped cleanly. Idempotent.
   */
  stopAll(): Promise<boolean> {
    this.#phase = 'stopping';
    this.#stopping ??= (async () => {
      this.#controller.abort(new Error('shutting down'));
      let clean = true;
      for (const subsystem of [...this.#started].reverse()) {
        clean = (await withinBound(subsystem.stop(), subsystem.stopTimeoutMs ?? 30_000)) && clean;
      }
      return clean;
    })();
    return this.#stopping;
  }

  /** `app.close()` without a drain (tests, startup failures) still stops the subsystems. */
  async onApplicationShutdown(): Promise<void> {
    await this.stopAll();
  }

  #emit(event: LifecycleEvent): void {
    for (const listener of this.#listeners) listener(event);
  }
}

/** Resolves true if `work` settles successfully within `ms`, false if it fails or takes longer. */
export async function withinBound(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), ms); });
  try {
    return await Promise.race([work.then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
