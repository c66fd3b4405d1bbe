import { join } from 'node:path';
import type { Provider } from '@nestjs/common';
import { MetricsRegistry, PROBES, staticProbe } from '@fetcher/platform';
import {
  ACTIVE_EXECUTION_CHECKER,
  type Clock,
  CLOCK as MANAGER_CLOCK,
  CONNECTION_REPOSITORY,
  JOB_PUBLISHER,
  JOB_CONTROL_PUBLISHER,
  InProcessJobControlPublisher,
  FileSystemResultReader,
  JOB_REPOSITORY,
  type ManagerConfig,
  type ManagerInfrastructure,
  MemoryActiveExecutionChecker,
  MemoryJobRepository,
  RESULT_READER,
} from '@fetcher/manager';
import {
  CONNECTION_RESOLVER as WORKER_CONNECTION_RESOLVER,
  EVENT_PUBLISHER,
  JOB_STORE,
  JobQueueTransport,
  MemoryConnectionResolver,
  MemoryJobStore,
  RESULT_STORE,
  type WorkerConfig,
  type WorkerInfrastructure,
} from '@fetcher/worker';
import { InProcessJobPublisher } from './adapters/in-process/job-publisher.in-process';
import type { InProcessJobQueueTransport } from './adapters/in-process/job-queue.in-process';
import { DATA_LAYOUT, type Backends } from './backends';

/** The checks `/readyz` shows in standalone mode: the embedded backends, which are up while the process is. */
function embeddedProbes(backends: Backends): Provider {
  return {
    provide: PROBES,
    useValue: [
      staticProbe('store', { status: 'up', reason: `embedded, in ${backends.dataDir}` }),
      staticProbe('queue', { status: 'up', reason: 'in-process' }),
      staticProbe('redis', { status: 'skipped', reason: 'standalone mode keeps the cache and limiter in memory' }),
    ],
  };
}

/** The Manager's ports on the embedded backends, in place of MongoDB and RabbitMQ. */
export function managerInfrastructure(backends: Backends, config: ManagerConfig, control = new InProcessJobControlPublisher()): ManagerInfrastructure {
  return {
    imports: [],
    providers: [
      { provide: CONNECTION_REPOSITORY, useValue: backends.connections },
      { provide: ACTIVE_EXECUTION_CHECKER, useValue: new MemoryActiveExecutionChecker(backends.jobs) },
      { provide: JOB_REPOSITORY, useValue: new MemoryJobRepository(backends.jobs) },
      {
        provide: JOB_PUBLISHER,
        inject: [MANAGER_CLOCK],
        useFactory: (clock: Clock) => new InProcessJobPublisher(backends.queue, config.amqp.workQueue, config.keyRing.current().internalHmac, clock),
      },
      // standalone.ts hands each cancel to the embedded Worker at once; its lease renewal would see the
      // request too (the job table is shared), but only within a third of the lease TTL.
      { provide: JOB_CONTROL_PUBLISHER, useValue: control },
      // The result route (when on) reads the objects the embedded Worker wrote, where the CLI reads them.
      { provide: RESULT_READER, useValue: new FileSystemResultReader(join(backends.dataDir, DATA_LAYOUT.objects)) },
      // Binding JOB_PUBLISHER leaves the RabbitMQ publisher and its readiness check unbuilt.
      embeddedProbes(backends),
    ],
  };
}

/**
 * The Worker's ports on the embedded backends, in place of MongoDB, RabbitMQ and S3: every port, the
 * consumer and the readiness checks, since the Worker then builds none of its own. With
 * `metricsRegistry`, the Worker's own metrics go to that registry instead of its platform module's:
 * the Worker serves no `/metrics` here, so they must join the registry the Manager serves.
 */
export function workerInfrastructure(
  backends: Backends,
  config: WorkerConfig,
  transport: InProcessJobQueueTransport,
  metricsRegistry?: MetricsRegistry,
): WorkerInfrastructure {
  return {
    imports: [],
    providers: [
      ...(metricsRegistry ? [{ provide: MetricsRegistry, useValue: metricsRegistry }] : []),
      { provide: JOB_STORE, useValue: new MemoryJobStore(backends.jobs) },
      {
        provide: WORKER_CONNECTION_RESOLVER,
        // The operator's DATASOURCE_<X>_* groups, as the Manager accepts them in job requests.
        useValue: new MemoryConnectionResolver(backends.connections, config.ring, config.internalDatasources),
      },
      { provide: RESULT_STORE, useValue: backends.results },
      { provide: EVENT_PUBLISHER, useValue: backends.events },
      // The Worker drains its consumer through this token at shutdown.
      { provide: JobQueueTransport, useValue: transport },
      embeddedProbes(backends),
    ],
  };
}
