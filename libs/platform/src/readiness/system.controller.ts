import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { MetricsRegistry } from '../metrics/metrics-registry';
import { PLATFORM_OPTIONS, type PlatformOptions } from './platform-options';
import { type SystemAnswer } from './readiness-body';
import { Readiness } from './readiness.service';

/**
 * Health, readiness, metrics and version. Never authenticated: orchestrators and scrapers call them.
 * Answers go straight to the adapter so that an app's exception filter or body rewriting cannot alter
 * the bodies monitoring depends on.
 */
@Controller()
export class SystemController {
  constructor(
    private readonly readiness: Readiness,
    private readonly metrics: MetricsRegistry,
    private readonly adapterHost: HttpAdapterHost,
    @Inject(PLATFORM_OPTIONS) private readonly options: PlatformOptions,
  ) {}

  @Get('health')
  health(@Res() res: unknown): void {
    this.#reply(res, this.readiness.health());
  }

  @Get('readyz')
  async readyz(@Res() res: unknown): Promise<void> {
    this.#reply(res, await this.readiness.readyz());
  }

  @Get('readyz/tenant/:id')
  async readyzTenant(@Param('id') id: string, @Res() res: unknown): Promise<void> {
    this.#reply(res, await this.readiness.readyzTenant(id));
  }

  @Get('version')
  version(@Res() res: unknown): void {
    this.#reply(res, { status: 200, body: { version: this.options.version, requestDate: new Date().toISOString() } });
  }

  @Get('metrics')
  async metricsText(@Res() res: unknown): Promise<void> {
    const adapter = this.adapterHost.httpAdapter;
    adapter.setHeader(res, 'Content-Type', this.metrics.contentType);
    adapter.reply(res, await this.metrics.metrics(), 200);
  }

  #reply(res: unknown, answer: SystemAnswer): void {
    const adapter = this.adapterHost.httpAdapter;
    adapter.setHeader(res, 'Cache-Control', 'no-store');
    adapter.reply(res, answer.body, answer.status);
  }
}
