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
});
