import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { loadWorkerConfig } from './config/worker.config';
import { WorkerModule } from './worker.module';

async function main(): Promise<void> {
  const config = loadWorkerConfig(process.env); // the app's only read of process.env
  const app = await NestFactory.create(WorkerModule.forRoot(config), { bufferLogs: true });
  app.enableShutdownHooks();
  await app.listen(config.health.port);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : 'unknown error';
  process.stderr.write(`worker: startup failed: ${message.replace(/\/\/[^@/\s]*@/g, '//[REDACTED]@')}\n`);
  process.exit(1);
});
