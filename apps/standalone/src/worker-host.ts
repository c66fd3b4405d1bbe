import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MetricsRegistry } from '@fetcher/platform';
import { JobCancelRegistry, prepareSpoolDir, type WorkerConfig, WorkerModule } from '@fetcher/worker';
import { InProcessJobQueueTransport } from './adapters/in-process/job-queue.in-process';
import type { Backends } from './backends';
import { workerInfrastructure } from './standalone.infrastructure';

export interface EmbeddedWorker {
  /** Where cancel requests go: the run of the job, if this Worker has it, is aborted at once. */
  readonly cancels: JobCancelRegistry;
  /** Stops taking jobs, lets the ones in flight finish, then closes the Worker. */
  close(): Promise<void>;
}

/**
 * The Worker's own module on the embedded backends, consuming the in-process work queue through a
 * Nest microservice transport, as it consumes RabbitMQ in production. It serves no HTTP: the
 * Manager's `/health`, `/readyz` and `/metrics` speak for the process, so the Worker's metrics are
 * registered on the registry given as `metricsRegistry` (the Manager's) when there is one.
 */
export async function startEmbeddedWorker(
  backends: Backends,
  config: WorkerConfig,
  options: { logger?: false; metricsRegistry?: MetricsRegistry } = {},
): Promise<EmbeddedWorker> {
  await prepareSpoolDir(config.storage.spoolDir);
  const transport = new InProcessJobQueueTransport(backends.queue, config.amqp.concurrency);
  const infrastructure = workerInfrastructure(backends, config, transport, options.metricsRegistry);
  const app: INestMicroservice = await NestFactory.createMicroservice(WorkerModule.forRoot(config, infrastructure), {
    strategy: transport,
    // Nest's own startup lines would bury the banner; warnings and errors still show.
    logger: options.logger === false ? false : ['error', 'warn'],
  });
  await app.listen();
  return {
    cancels: app.get(JobCancelRegistry),
    close: async () => {
      await transport.drain();
      await app.close();
    },
  };
}
