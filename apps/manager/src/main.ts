import 'reflect-metadata';
import { loadManagerConfig } from './config/manager.config';
import { createManagerApp } from './http/http-app';

async function main(): Promise<void> {
  const config = loadManagerConfig(process.env); // the app's only read of process.env
  const app = await createManagerApp(config);
  await app.listen({ port: config.http.port, host: config.http.host ?? '0.0.0.0' });
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : 'unknown error';
  process.stderr.write(`manager: startup failed: ${message.replace(/\/\/[^@/\s]*@/g, '//[REDACTED]@')}\n`);
  process.exit(1);
});
