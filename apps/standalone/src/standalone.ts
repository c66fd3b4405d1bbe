import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { listenNamingVariable, MetricsRegistry } from '@fetcher/platform';
import { createManagerApp, InProcessJobControlPublisher, loadManagerConfig } from '@fetcher/manager';
import { loadWorkerConfig } from '@fetcher/worker';
import { DATA_LAYOUT, openBackends, type Backends } from './backends';
import { appEnvironments, EMBEDDED_MANAGER, EMBEDDED_WORKER } from './config/app-env';
import type { StandaloneConfig } from './config/standalone.config';
import { registerDemoConnection } from './demo/demo-connection';
import { DemoDatabase, type DemoDatabaseAddress } from './demo/demo-database';
import { checkDataDirKey } from './keys/key-check';
import { loadOrCreateMasterKey } from './keys/master-key';
import { prepareDataDir } from './persistence/data-dir';
import { lockDataDir, type DataDirLock } from './persistence/data-dir-lock';
import { managerInfrastructure } from './standalone.infrastructure';
import { startEmbeddedWorker } from './worker-host';

export interface StandaloneService {
  readonly baseUrl: string;
  readonly dataDir: string;
  readonly keyOrigin: string;
  /** Whether the Manager serves the operator console (CONSOLE_ENABLED). */
  readonly console: boolean;
  readonly demo?: DemoDatabaseAddress;
  readonly backends: Backends;
  /** Stops taking requests, lets jobs in flight finish, then closes everything; safe to call twice. */
  close(): Promise<void>;
}

export interface StandaloneOptions {
  /** Nest's own logger; tests pass `false`. */
  readonly logger?: false;
}

/**
 * The composition root of the standalone process: it opens the embedded backends once and hands
 * the same adapters to the Manager and the Worker, which run here as two Nest applications with
 * their own modules, handlers and configuration loaders, exactly as in production.
 */
export async function startStandalone(config: StandaloneConfig, options: StandaloneOptions = {}): Promise<StandaloneService> {
  const dataDir = await prepareDataDir(config.dataDir);
  if (dataDir.narrowedFrom !== undefined && options.logger !== false) {
    new Logger('standalone').warn(`FETCHER_DATA_DIR was readable by others (mode ${dataDir.narrowedFrom.toString(8)}); made it private (700)`);
  }
  // Before anything else reads or writes the directory: a second process stops here.
  const lock = await lockDataDir(config.dataDir);
  try {
    return await startOnLockedDataDir(config, options, lock);
  } catch (error) {
    await lock.release();
    throw error;
  }
}

async function startOnLockedDataDir(config: StandaloneConfig, options: StandaloneOptions, lock: DataDirLock): Promise<StandaloneService> {
  const key = await loadOrCreateMasterKey(config.dataDir, config.masterKeyText);
  const envs = appEnvironments(config, key.base64);
  const managerConfig = loadManagerConfig(envs.manager, EMBEDDED_MANAGER);
  const workerConfig = loadWorkerConfig({ RESULT_SPOOL_DIR: join(config.dataDir, DATA_LAYOUT.spool), ...envs.worker }, EMBEDDED_WORKER);
  await checkDataDirKey(config.dataDir, managerConfig.keyRing, key);
  const backends = await openBackends(config.dataDir);

  const demoDatabase = config.demo ? new DemoDatabase() : undefined;
  const cleanups: (() => Promise<void>)[] = [];
  // PGlite takes seconds to compile and seed, in its own thread: it starts first and the two apps
  // boot meanwhile. The API listens only once the demo connection points at the database.
  const demoStarting = demoDatabase?.start({ dataDir: join(config.dataDir, DATA_LAYOUT.demoDatabase) });
  if (demoDatabase) cleanups.unshift(() => demoDatabase.stop());
  demoStarting?.catch(() => undefined); // awaited below; this only keeps an early failure from being unhandled
  try {
    const control = new InProcessJobControlPublisher();
    const manager: NestFastifyApplication = await createManagerApp(managerConfig, {
      infrastructure: managerInfrastructure(backends, managerConfig, control),
      ...(options.logger === false ? { logger: false as const } : {}),
    });
    cleanups.unshift(() => manager.close());

    // Built after the Manager so that its metrics join the registry the Manager serves at /metrics
    // (one exposition, the process metrics once). Messages published meanwhile wait in the queue.
    const worker = await startEmbeddedWorker(backends, workerConfig, { ...options, metricsRegistry: manager.get(MetricsRegistry) });
    // Closed right after the Manager, which stops taking requests first; the demo database goes last.
    cleanups.splice(1, 0, () => worker.close());
    // The in-process control channel: a cancel of a processing job reaches its run without waiting for a lease renewal.
    control.onCancel((jobId, requestedAt) => worker.cancels.request(jobId, requestedAt));
    const demo: DemoDatabaseAddress | undefined = await demoStarting;
    if (demo) await registerDemoConnection(backends.connections, managerConfig.keyRing, demo, new Date());
    await listenNamingVariable('SERVER_ADDRESS', config.http, () => manager.listen({ port: config.http.port, host: config.http.host }));
    const address = manager.getHttpServer().address();
    const port = typeof address === 'object' && address ? address.port : config.http.port;
    const host = config.http.host.includes(':') ? `[${config.http.host}]` : config.http.host;

    let closing: Promise<void> | undefined;
    return {
      baseUrl: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
      dataDir: config.dataDir,
      keyOrigin: key.origin,
      console: managerConfig.console.enabled,
      ...(demo ? { demo } : {}),
      backends,
      close: () => (closing ??= runCleanups(cleanups, backends).finally(() => lock.release())),
    };
  } catch (error) {
    await runCleanups(cleanups, backends);
    throw error;
  }
}

async function runCleanups(cleanups: readonly (() => Promise<void>)[], backends: Backends): Promise<void> {
  const log = new Logger('standalone');
  for (const cleanup of cleanups) {
    await cleanup().catch(() => log.warn('a component did not stop cleanly'));
  }
  await backends.flush();
}
