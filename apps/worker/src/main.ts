import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger as PinoLogger } from 'nestjs-pino';
import { listenNamingVariable, loadDotEnvIfLocal, redactUrls, runGracefully, startTelemetry } from '@fetcher/platform';
import { JobQueueTransport } from './adapters/amqp/job-queue.transport';
import { loadWorkerConfig } from './config/worker.config';
import { prepareSpoolDir } from './jobs/result/spool-dir';
import { bootTelemetry } from '@fetcher/platform';
import { WorkerModule } from './worker.module';

async function main(): Promise<void> {
  loadDotEnvIfLocal(process.env); // ENV_NAME=local only; variables already set win
  const config = loadWorkerConfig(process.env); // the app's only read of process.env
  await prepareSpoolDir(config.storage.spoolDir);
  // Off by default: then nothing is started and no span is ever created.
  const telemetry = bootTelemetry(config.telemetry, startTelemetry);
  const app = await NestFactory.create<NestFastifyApplication>(WorkerModule.forRoot(config, undefined, telemetry), new FastifyAdapter(), { bufferLogs: true });
  app.useLogger(app.get(PinoLogger));
  const logger = new Logger('worker');
  if (config.skippedDatasources.length > 0) logger.warn(`internal datasources skipped (incomplete): ${config.skippedDatasources.join(', ')}`);
  if (config.storage.ttl) logger.log(`OBJECT_STORAGE_TTL is ${config.storage.ttl}; expiry is the bucket's lifecycle rule`);
  if (telemetry) logger.log(`telemetry on: traces exported over OTLP as ${config.telemetry.serviceName}`);
  app.connectMicroservice({ strategy: app.get(JobQueueTransport) });
  // Command handlers are registered at bootstrap; consuming before that would dead-letter deliveries.
  await app.init();
  await app.startAllMicroservices();
  await listenNamingVariable('HEALTH_PORT', { host: '0.0.0.0', port: config.health.port }, () => app.listen(config.health.port, '0.0.0.0'));
  // SIGTERM/SIGINT: /readyz goes 503, then the consumer stops and in-flight jobs finish, then
  // connections close (app.close() also flushes the last spans). The health server stays up
  // meanwhile, so probes see the drain.
  runGracefully(app, { drainDelaySec: config.health.drainDelaySec, logger, httpServer: 'last' });
}

main().catch((error: unknown) => {
  // Configuration errors name variables only; anything else may quote a URL with credentials.
  const message = error instanceof Error ? error.message : 'unknown error';
  process.stderr.write(`worker: startup failed: ${redactUrls(message)}\n`);
  process.exit(1);
});
