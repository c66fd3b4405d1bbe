import { type DynamicModule, Global, type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Lifecycle } from './lifecycle/lifecycle';
import { RequestIdMiddleware } from './logging/request-id';
import { HttpMetricsMiddleware, RouteLabelGuard } from './metrics/http-metrics';
import { MetricsRegistry } from './metrics/metrics-registry';
import { PLATFORM_OPTIONS, type PlatformOptions } from './readiness/platform-options';
import { Readiness } from './readiness/readiness.service';
import { HttpTracingMiddleware } from './telemetry/http-tracing.middleware';
import { SystemController } from './readiness/system.controller';

/**
 * What operators see of every Fetcher process: `/health`, `/readyz`, `/readyz/tenant/:id`, `/metrics`,
 * `/version`, request ids (`X-Request-Id` echoed), HTTP request metrics, and the `Lifecycle` (drain flag, shared abort signal, subsystems).
 * Global, so any module can inject `Lifecycle` and `MetricsRegistry`.
 */
@Global()
@Module({})
export class PlatformModule implements NestModule {
  static forRoot(options: PlatformOptions): DynamicModule {
    return {
      module: PlatformModule,
      controllers: [SystemController],
      providers: [
        { provide: PLATFORM_OPTIONS, useValue: options },
        { provide: MetricsRegistry, useValue: options.metricsRegistry ?? new MetricsRegistry() },
        Lifecycle,
        Readiness,
        RouteLabelGuard,
        { provide: APP_GUARD, useExisting: RouteLabelGuard },
      ],
      exports: [PLATFORM_OPTIONS, MetricsRegistry, Lifecycle, Readiness],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RequestIdMiddleware, HttpMetricsMiddleware, HttpTracingMiddleware).forRoutes('*');
  }
}
