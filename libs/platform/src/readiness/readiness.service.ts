import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Lifecycle } from '../lifecycle/lifecycle';
import { MetricsRegistry } from '../metrics/metrics-registry';
import { PLATFORM_OPTIONS, type PlatformOptions } from './platform-options';
import { type CheckResult, PROBES, type ReadinessProbe, TENANT_READINESS, type TenantReadiness } from './probe';
import { drainAnswer, type ReadinessMeta, readinessAnswer, type SystemAnswer } from './readiness-body';
import { ReadinessChecks } from './readiness-checks';
import { errorText, sanitizeCheckError } from './sanitize';

/** Pause between two looks at a check that has not passed yet during the startup self-probe. */
const SELF_PROBE_RETRY_MS = 250;

/**
 * Liveness and readiness. Liveness is decided once by a self-probe at startup and never changes, so a
 * dependency lost later cannot make the orchestrator restart a process that a restart would not fix.
 * Readiness asks every dependency on every request, through Terminus (`ReadinessChecks`), in parallel
 * and without caching; `readinessAnswer` turns Terminus' result into our body.
 */
@Injectable()
export class Readiness implements OnApplicationBootstrap, OnModuleDestroy {
  #probes: readonly ReadinessProbe[] = [];
  #tenants: TenantReadiness | undefined;
  #selfProbe: 'pending' | 'passed' | 'failed' = 'pending';
  #selfProbeDone: Promise<void> = Promise.resolve();
  readonly #stop = new AbortController();

  constructor(
    @Inject(PLATFORM_OPTIONS) private readonly options: PlatformOptions,
    private readonly lifecycle: Lifecycle,
    private readonly metrics: MetricsRegistry,
    private readonly checks: ReadinessChecks,
    private readonly moduleRef: ModuleRef,
  ) {}

  onApplicationBootstrap(): void {
    this.#probes = this.options.probes ?? this.#lookup<readonly ReadinessProbe[]>(PROBES) ?? [];
    this.#tenants = this.#lookup<TenantReadiness>(TENANT_READINESS);
    // Not awaited: the process listens at once and answers 503 on /health until the probe passes.
    this.#selfProbeDone = this.#runSelfProbe();
  }

  onModuleDestroy(): void {
    this.#stop.abort(new Error('shutting down'));
  }

  /** Resolves once the startup self-probe has decided (tests, logs). */
  selfProbeSettled(): Promise<void> {
    return this.#selfProbeDone;
  }

  health(): SystemAnswer {
    if (this.#selfProbe === 'passed') return { status: 200, body: { status: 'healthy' } };
    return { status: 503, body: { status: 'unhealthy', reason: this.#selfProbe === 'failed' ? 'self-probe failed' : 'self-probe pending' } };
  }

  async readyz(): Promise<SystemAnswer> {
    if (this.lifecycle.draining) return drainAnswer(this.#meta());
    return this.#check(this.#probes);
  }

  async readyzTenant(tenantId: string): Promise<SystemAnswer> {
    if (!this.#tenants) return { status: 400, body: { error: 'multi-tenant mode is disabled' } };
    if (this.lifecycle.draining) return drainAnswer(this.#meta());
    if (tenantId.trim() === '') return { status: 400, body: { error: 'tenant id required' } };
    let resolution;
    try {
      resolution = await this.#tenants.resolve(tenantId, this.#stop.signal);
    } catch (error) {
      return { status: 503, body: { error: `tenant manager unreachable: ${sanitizeCheckError(errorText(error))}` } };
    }
    if ('status' in resolution) return { status: resolution.status, body: resolution.body };
    // The tenant's probes become indicators like the process's own, through the same mapper.
    const answer = await this.#check(resolution.probes);
    return { status: answer.status, body: { ...answer.body, tenant_id: tenantId } };
  }

  async #check(probes: readonly ReadinessProbe[]): Promise<SystemAnswer> {
    const result = await this.checks.run(probes, this.#observe);
    return readinessAnswer(result, probes.map((probe) => probe.name), this.#meta());
  }

  #meta(): ReadinessMeta {
    const version = this.options.readyzVersion && this.options.readyzVersion !== '' ? this.options.readyzVersion : 'unknown';
    return { version, deploymentMode: this.options.deploymentMode };
  }

  readonly #observe = (name: string, result: CheckResult, durationMs: number): void => {
    this.metrics.readyzCheckDuration.observe({ dep: name, status: result.status }, durationMs);
    this.metrics.readyzCheckStatus.inc({ dep: name, status: result.status });
  };

  async #runSelfProbe(): Promise<void> {
    const budgetMs = this.options.selfProbeBudgetMs ?? 15_000;
    const passed = new Map<string, boolean>();
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<void>((resolve) => { timer = setTimeout(resolve, budgetMs); });
    let budgetSpent = false;
    void budget.then(() => (budgetSpent = true));
    // A check that does not pass is asked again until the budget runs out: clients such as the AMQP
    // connection manager are still opening their connection while the app boots, and a process
    // must not be marked unhealthy for life because its first look came a few milliseconds early.
    const all = Promise.all(this.#probes.map(async (probe) => {
      for (;;) {
        // One look is one Terminus run of this probe's indicator; `ok` means it passed.
        const ok = (await this.checks.run([probe], this.#observe, this.#stop.signal)).status === 'ok';
        passed.set(probe.name, ok);
        if (ok || budgetSpent || this.#stop.signal.aborted) return;
        await Promise.race([new Promise((resolve) => setTimeout(resolve, SELF_PROBE_RETRY_MS)), budget]);
        if (budgetSpent || this.#stop.signal.aborted) return;
      }
    }));
    try {
      await Promise.race([all, budget]);
    } finally {
      clearTimeout(timer);
      budgetSpent = true;
    }
    // A probe still running when the budget ran out counts as failed.
    for (const probe of this.#probes) this.metrics.selfprobeResult.set({ dep: probe.name }, passed.get(probe.name) ? 1 : 0);
    const ok = this.#probes.every((probe) => passed.get(probe.name) === true);
    this.#selfProbe = ok ? 'passed' : 'failed';
  }

  #lookup<T>(token: symbol): T | undefined {
    try {
      return this.moduleRef.get<T>(token, { strict: false });
    } catch {
      return undefined;
    }
  }
}
