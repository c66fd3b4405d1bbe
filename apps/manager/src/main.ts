import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { loadManagerConfig } from './config/manager.config';
import { ManagerModule } from './manager.module';

async function main(): Promise<void> {
  const config = loadManagerConfig(process.env); // the app's only read of process.env
  const app = await NestFactory.create(ManagerModule.forRoot(config), { bufferLogs: true });
  app.enableShutdownHooks();
  await (config.http.host ? app.listen(config.http.port, config.http.host) : app.listen(config.http.port));
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : 'unknown error';
  process.stderr.write(`manager: startup failed: ${message.replace(/\/\/[^@/\s]*@/g, '//[REDACTED]@')}\n`);
  process.exit(1);
});
