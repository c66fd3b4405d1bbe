import { type DynamicModule, Global, Inject, Module, type NestModule, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import type { FastifyInstance } from 'fastify';
import { PARAMS_PROVIDER_TOKEN, type Params } from 'nestjs-pino';
import { installRequestHooks } from './http/request-hooks';
import { Lifecycle } from './lifecycle/lifecycle';
import { RequestLogging } from './logging/request-logging';
import { MetricsRegistry } from './metrics/metrics-registry';
import { PLATFORM_OPTIONS, type PlatformOptions } from './readiness/platform-options';
import { ReadinessChecks } from './readiness/readiness-checks';
import { Readiness } from './readiness/readiness.service';
import { SystemController } from './readiness/system.controller';

/**
 * What operators see of every Fetcher process: `/health`, `/readyz`, `/readyz/tenant/:id` (checks run
 * by `@nestjs/terminus`, bodies written by our own mapper), `/metrics`, `/version`, request ids
 * (`X-Request-Id` echoed), request logging (with nestjs-pino's LoggerModule and `loggerModuleOptions`),
 * HTTP request metrics and spans, and the `Lifecycle` (drain flag, shared abort signal, subsystems).
 * Global, so any module can inject `Lifecycle` and `MetricsRegistry`.
 */
@Global()
@Module({})
export class PlatformModule implements NestModule {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(PLATFORM_OPTIONS) private readonly options: PlatformOptions,
    private readonly metrics: MetricsRegistry,
    @Optional() @Inject(PARAMS_PROVIDER_TOKEN) private readonly logParams?: Params,
  ) {}

  static forRoot(options: PlatformOptions): DynamicModule {
    return {
      module: PlatformModule,
      // Terminus runs the checks; its logger is off because a failing check is already in the body
      // and the metrics, and orchestrators poll /readyz every few seconds.
      imports: [TerminusModule.forRoot({ logger: false })],
      controllers: [SystemController],
      providers: [
        { provide: PLATFORM_OPTIONS, useValue: options },
        { provide: MetricsRegistry, useValue: options.metricsRegistry ?? new MetricsRegistry() },
        Lifecycle,
        ReadinessChecks,
        Readiness,
      ],
      exports: [PLATFORM_OPTIONS, MetricsRegistry, Lifecycle, Readiness],
    };
  }

  /** Nest calls this for HTTP applications only, before their routes are registered. */
  configure(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (adapter.getType() !== 'fastify') throw new Error('PlatformModule serves HTTP on Fastify only');
    installRequestHooks(adapter.getInstance<FastifyInstance>(), {
      metrics: this.metrics,
      ...(this.logParams ? { logging: new RequestLogging(this.logParams) } : {}),
      ...(this.options.telemetry ? { telemetry: this.options.telemetry } : {}),
    });
  }
}
