import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { loadDotEnvIfLocal, runGracefully } from '@fetcher/platform';
import { logPluginAuthConnectivity } from './auth/plugin-auth.health';
import { loadManagerConfig } from './config/manager.config';
import { createManagerApp } from './http/http-app';

async function main(): Promise<void> {
  // The app's only reads of process.env: `.env` (ENV_NAME=local only), then the parse.
  loadDotEnvIfLocal(process.env, { defaultEnvName: 'local' });
  const config = loadManagerConfig(process.env);
  const app = await createManagerApp(config);
  const logger = new Logger('manager');
  for (const warning of config.warnings) logger.warn(warning);
  void logPluginAuthConnectivity(config.pluginAuth, logger);
  runGracefully(app, { drainDelaySec: config.drainDelaySec, logger });
  await app.listen({ port: config.http.port, host: config.http.host ?? '0.0.0.0' });
  logger.log(`listening on ${config.http.host ?? '0.0.0.0'}:${config.http.port}`);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : 'unknown error';
  process.stderr.write(`manager: startup failed: ${message.replace(/\/\/[^@/\s]*@/g, '//[REDACTED]@')}\n`);
  process.exit(1);
});
