import { Test } from '@nestjs/testing';
import { loadWorkerConfig } from './config/worker.config';
import { RunJobHandler } from './jobs/commands/run-job.handler';
import { JobRequestedController } from './jobs/job-requested.controller';
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

  it('refuses multi-tenant mode until per-tenant consumers are wired, naming the variable', () => {
    const config = loadWorkerConfig({ ...ENV, ENV_NAME: 'staging', MULTI_TENANT_ENABLED: 'true', MULTI_TENANT_URL: 'https://tm', MULTI_TENANT_SERVICE_API_KEY: 'k', MULTI_TENANT_REDIS_HOST: 'r' });
    expect(() => WorkerModule.forRoot(config)).toThrow('MULTI_TENANT_ENABLED: the multi-tenant settings are valid, but this release cannot serve tenants yet');
  });
});
