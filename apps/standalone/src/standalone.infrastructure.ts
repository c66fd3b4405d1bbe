import type { Provider } from '@nestjs/common';
import { MetricsRegistry, PROBES, staticProbe } from '@fetcher/platform';
import type { ManagerConfig } from '../../manager/src/config/manager.config';
import type { ManagerInfrastructure } from '../../manager/src/manager.module';
import { AmqpJobPublisher } from '../../manager/src/adapters/amqp/job-publisher.amqp';
import { RABBITMQ_PROBE } from '../../manager/src/adapters/readiness/probes.provider';
import { ACTIVE_EXECUTION_CHECKER } from '../../manager/src/ports/active-execution-checker.port';
import { CONNECTION_REPOSITORY } from '../../manager/src/ports/connection-repository.port';
import { CLOCK as MANAGER_CLOCK, type Clock } from '../../manager/src/ports/clock.port';
import { JOB_PUBLISHER } from '../../manager/src/ports/job-publisher.port';
import { JOB_REPOSITORY } from '../../manager/src/ports/job-repository.port';
import { JobQueueTransport } from '../../worker/src/adapters/amqp/job-queue.transport';
import type { WorkerConfig } from '../../worker/src/config/worker.config';
import { CONNECTION_RESOLVER as WORKER_CONNECTION_RESOLVER } from '../../worker/src/ports/connection-resolver.port';
import { EVENT_PUBLISHER } from '../../worker/src/ports/event-publisher.port';
import { JOB_STORE } from '../../worker/src/ports/job-store.port';
import { RESULT_STORE } from '../../worker/src/ports/result-store.port';
import type { WorkerInfrastructure } from '../../worker/src/worker.module';
import { InProcessJobPublisher } from './adapters/in-process/job-publisher.in-process';
import type { InProcessJobQueueTransport } from './adapters/in-process/job-queue.in-process';
import { MemoryActiveExecutionChecker } from './adapters/memory/active-execution-checker.memory';
import { MemoryConnectionResolver } from './adapters/memory/connection-resolver.memory';
import { MemoryJobRepository } from './adapters/memory/job-repository.memory';
import { MemoryJobStore } from './adapters/memory/job-store.memory';
import type { Backends } from './backends';

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
export function managerInfrastructure(backends: Backends, config: ManagerConfig): ManagerInfrastructure {
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
      // The RabbitMQ publisher connects when it is built, so its token is taken over too.
      { provide: AmqpJobPublisher, useExisting: JOB_PUBLISHER },
      { provide: RABBITMQ_PROBE, useValue: staticProbe('queue', { status: 'up', reason: 'in-process' }) },
      embeddedProbes(backends),
    ],
  };
}

/**
 * The Worker's ports on the embedded backends, in place of MongoDB, RabbitMQ and S3. With
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
