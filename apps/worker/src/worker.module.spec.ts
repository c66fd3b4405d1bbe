import { Test } from '@nestjs/testing';
import { loadWorkerConfig } from './config/worker.config';
import { RunJobHandler } from './jobs/commands/run-job.handler';
import { JobRequestedController } from './jobs/job-requested.controller';
import { PROBES, type ReadinessProbe } from '@fetcher/platform';
import { JobQueueTransport } from './adapters/amqp/job-queue.transport';
import { TenantConnectionResolver } from './adapters/tenant/tenant-connection-resolver';
import { TenantEventPublisher } from './adapters/tenant/tenant-event-publisher';
import { TenantJobStore } from './adapters/tenant/tenant-job-store';
import { CONNECTION_RESOLVER } from './ports/connection-resolver.port';
import { EVENT_PUBLISHER } from './ports/event-publisher.port';
import { JOB_STORE } from './ports/job-store.port';
import { TenantJobQueues } from './tenancy/tenant-job-queues';
import { WorkerModule } from './worker.module';

const ENV = {
  APP_ENC_KEY: Buffer.alloc(32, 3).toString('base64'),
  RABBITMQ_FETCHER_WORK_QUEUE: 'q',
  RABBITMQ_JOB_EVENTS_EXCHANGE: 'fetcher.job.events',
  STREAMING_ENABLED: 'true',
  OBJECT_STORAGE_BUCKET: 'b',
  MONGO_NAME: 'fetcher',
};

describe(WorkerModule.name, () => {
  it('compiles the composition root without opening a connection', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [WorkerModule.forRoot(loadWorkerConfig(ENV))] }).compile();
    try {
      expect(moduleRef.get(JobRequestedController)).toBeDefined();
      expect(moduleRef.get(RunJobHandler)).toBeDefined();
    } finally {
      await moduleRef.close();
    }
  });

  it('binds the tenant-scoped ports in multi-tenant mode, and reports the shared database and vhost as n/a', async () => {
    const config = loadWorkerConfig({ ...ENV, ENV_NAME: 'staging', MULTI_TENANT_ENABLED: 'true', MULTI_TENANT_URL: 'https://tm', MULTI_TENANT_SERVICE_API_KEY: 'k', MULTI_TENANT_REDIS_HOST: 'r' });
    const moduleRef = await Test.createTestingModule({ imports: [WorkerModule.forRoot(config)] }).compile();
    try {
      expect(moduleRef.get(JOB_STORE)).toBeInstanceOf(TenantJobStore);
      expect(moduleRef.get(EVENT_PUBLISHER)).toBeInstanceOf(TenantEventPublisher);
      expect(moduleRef.get(CONNECTION_RESOLVER)).toBeInstanceOf(TenantConnectionResolver);
      expect(moduleRef.get(JobQueueTransport)).toBeInstanceOf(TenantJobQueues);
      const probes = moduleRef.get<readonly ReadinessProbe[]>(PROBES);
      expect(probes.map((p) => p.name)).toEqual(['mongodb', 'rabbitmq', 's3', 'multi_tenant_redis', 'tenant_manager']);
      const signal = new AbortController().signal;
      expect(await probes[0].check(signal)).toMatchObject({ status: 'n/a' });
      expect(await probes[1].check(signal)).toMatchObject({ status: 'n/a' });
      expect(await probes[4].check(signal)).toEqual({ status: 'up' });
    } finally {
      await moduleRef.close();
    }
  });

  it('refuses multi-tenant mode with another host\'s embedded backends, which serve one tenant', () => {
    const config = loadWorkerConfig({ ...ENV, ENV_NAME: 'staging', MULTI_TENANT_ENABLED: 'true', MULTI_TENANT_URL: 'https://tm', MULTI_TENANT_SERVICE_API_KEY: 'k', MULTI_TENANT_REDIS_HOST: 'r' });
    expect(() => WorkerModule.forRoot(config, { imports: [], providers: [] })).toThrow('MULTI_TENANT_ENABLED');
  });
});
