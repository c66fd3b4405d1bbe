import type { FactoryProvider } from '@nestjs/common';
import { createConnectorRegistry } from '@fetcher/connectors';
import { createEngine, type Engine } from '@fetcher/engine';
import { observabilityFromTracer, type Telemetry } from '@fetcher/platform';
import { RedisSchemaCache } from '../redis/schema-cache.redis';
import { MANAGER_CONFIG, type ManagerConfig } from '../../config/manager.config';
import { ConnectionDirectory } from '../../connections/connection-directory';
import { ACTIVE_EXECUTION_CHECKER, type ActiveExecutionChecker } from '../../ports/active-execution-checker.port';
import { ENGINE } from '../../ports/engine.port';
import { TELEMETRY } from '@fetcher/platform';
import { KeyRingCredentialProtector } from '../crypto/credential-protector.key-ring';
import { DirectoryConnectionStore } from './connection-store.engine';

/**
 * The engine, built once with the Manager's adapters for its ports. A wiring mistake fails here,
 * at boot. Connectors get the host-safety policy from configuration.
 */
export const engineProvider: FactoryProvider<Engine> = {
  provide: ENGINE,
  inject: [MANAGER_CONFIG, ConnectionDirectory, RedisSchemaCache, ACTIVE_EXECUTION_CHECKER, TELEMETRY],
  useFactory: (config: ManagerConfig, directory: ConnectionDirectory, schemaCache: RedisSchemaCache, checker: ActiveExecutionChecker, telemetry: Telemetry | null) =>
    createEngine({
      connectorRegistry: createConnectorRegistry({
        hostSafety: { allowPrivate: config.hostSafety.allowPrivate, allowlist: config.hostSafety.allowlist },
      }),
      connectionStore: new DirectoryConnectionStore(directory),
      credentialProtector: new KeyRingCredentialProtector(config.keyRing),
      schemaCache,
      activeExecutionChecker: checker,
      // Engine steps become child spans of the request; off, the engine keeps its no-op port.
      ...(telemetry ? { observability: observabilityFromTracer(telemetry.tracer) } : {}),
    }),
};
