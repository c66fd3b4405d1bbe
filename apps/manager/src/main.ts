import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { listenNamingVariable, loadDotEnvIfLocal, redactUrls, runGracefully, startTelemetry } from '@fetcher/platform';
import { logPluginAuthConnectivity } from './auth/plugin-auth.health';
import { loadManagerConfig } from './config/manager.config';
import { createManagerApp } from './http/http-app';
import { bootTelemetry } from '@fetcher/platform';

async function main(): Promise<void> {
  // The app's only reads of process.env: `.env` (ENV_NAME=local only), then the parse.
  loadDotEnvIfLocal(process.env, { defaultEnvName: 'local' });
  const config = loadManagerConfig(process.env);
  // Off by default: then nothing is started and no span is ever created.
  const telemetry = bootTelemetry(config.telemetry, startTelemetry);
  const app = await createManagerApp(config, { telemetry });
  const logger = new Logger('manager');
  for (const warning of config.warnings) logger.warn(warning);
  if (telemetry) logger.log(`telemetry on: traces exported over OTLP as ${config.telemetry.serviceName}`);
  void logPluginAuthConnectivity(config.pluginAuth, logger);
  // The drain ends with app.close(), whose shutdown hook flushes the last spans.
  runGracefully(app, { drainDelaySec: config.drainDelaySec, logger });
  await listenNamingVariable('SERVER_ADDRESS', config.http, () => app.listen({ port: config.http.port, host: config.http.host ?? '0.0.0.0' }));
  logger.log(`listening on ${config.http.host ?? '0.0.0.0'}:${config.http.port}`);
}

main().catch((error: unknown) => {
  // Configuration errors name variables only; anything else may quote a URL with credentials.
  const message = error instanceof Error ? error.message : 'unknown error';
  process.stderr.write(`manager: startup failed: ${redactUrls(message)}\n`);
  process.exit(1);
});
