import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { JobQueueTransport } from './adapters/amqp/job-queue.transport';
import { loadWorkerConfig } from './config/worker.config';
import { prepareSpoolDir } from './jobs/result/spool-dir';
import { BackgroundLoops } from './jobs/background/background-loops';
import { WorkerModule } from './worker.module';

async function main(): Promise<void> {
  const config = loadWorkerConfig(process.env); // the app's only read of process.env
  await prepareSpoolDir(config.storage.spoolDir);
  const app = await NestFactory.create<NestFastifyApplication>(WorkerModule.forRoot(config), new FastifyAdapter(), { bufferLogs: true });
  const transport = app.get(JobQueueTransport);
  app.connectMicroservice({ strategy: transport });
  await app.startAllMicroservices();
  await app.listen(config.health.port, '0.0.0.0');

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      // Jobs in flight finish; nothing new is taken; then the loops stop and connections close.
      await transport.drain();
      app.get(BackgroundLoops).stop();
      await app.close();
      process.exit(0);
    })();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : 'unknown error';
  process.stderr.write(`worker: startup failed: ${message.replace(/\/\/[^@/\s]*@/g, '//[REDACTED]@')}\n`);
  process.exit(1);
});
