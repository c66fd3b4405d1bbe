import { Test } from '@nestjs/testing';
import { loadWorkerConfig } from './config/worker.config';
import { HealthController } from './health/health.controller';
import { WorkerModule } from './worker.module';

describe(WorkerModule.name, () => {
  it('compiles the composition root and answers /health', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [WorkerModule.forRoot(loadWorkerConfig({}))] }).compile();
    try {
      expect(moduleRef.get(HealthController).health()).toEqual({ status: 'healthy' });
    } finally {
      await moduleRef.close();
    }
  });
});

describe(loadWorkerConfig.name, () => {
  it.each([[undefined, 4007], ['0', 4007], ['-5', 4007], ['70000', 4007], ['x', 4007], ['4100', 4100]])(
    'HEALTH_PORT=%s listens on %d',
    (raw, port) => expect(loadWorkerConfig({ HEALTH_PORT: raw }).health.port).toBe(port),
  );
});
