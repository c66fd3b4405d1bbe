import { Test } from '@nestjs/testing';
import { loadManagerConfig } from './config/manager.config';
import { ManagerModule } from './manager.module';
import { SystemController } from './system/system.controller';

describe(ManagerModule.name, () => {
  it('compiles the composition root and answers /health and /version', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [ManagerModule.forRoot(loadManagerConfig({ VERSION: '1.2.3' }))],
    }).compile();
    try {
      const sut = moduleRef.get(SystemController);
      expect(sut.health()).toEqual({ status: 'healthy' });
      expect(sut.version()).toEqual({ version: '1.2.3', requestDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    } finally {
      await moduleRef.close();
    }
  });
});

describe(loadManagerConfig.name, () => {
  it('defaults to port 4006 and treats blank values as unset', () => {
    expect(loadManagerConfig({ SERVER_ADDRESS: '  ' })).toEqual({ http: { port: 4006 }, version: '0.0.0' });
    expect(loadManagerConfig({ SERVER_ADDRESS: '127.0.0.1:8080' }).http).toEqual({ host: '127.0.0.1', port: 8080 });
  });

  it('refuses a bad listen address, naming the variable but not the value', () => {
    expect(() => loadManagerConfig({ SERVER_ADDRESS: 'secret-host:99999' })).toThrow(/SERVER_ADDRESS/);
    expect(() => loadManagerConfig({ SERVER_ADDRESS: 'secret-host:99999' })).not.toThrow(/secret-host/);
  });
});
