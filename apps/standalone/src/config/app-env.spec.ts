import { loadManagerConfig } from '@fetcher/manager';
import { appEnvironments, EMBEDDED_MANAGER, resultDownloadDefault } from './app-env';
import { loadStandaloneConfig } from './standalone.config';

const KEY = Buffer.alloc(32, 7).toString('base64');
const managerSettings = (env: Record<string, string>) => loadManagerConfig(appEnvironments(loadStandaloneConfig(env, '/tmp'), KEY).manager, EMBEDDED_MANAGER);

describe(resultDownloadDefault.name, () => {
  it('is on for loopback addresses only', () => {
    expect(['127.0.0.1', '::1', 'localhost'].map(resultDownloadDefault)).toEqual(['true', 'true', 'true']);
    expect(['0.0.0.0', '192.168.1.20', '::'].map(resultDownloadDefault)).toEqual(['false', 'false', 'false']);
  });
});

describe('the result route in standalone mode', () => {
  it('is on by default on the default (loopback) address, reading the embedded objects (no S3 settings)', () => {
    expect(managerSettings({}).resultDownload).toEqual({ enabled: true });
  });

  it('is off by default on a non-loopback address, and RESULT_DOWNLOAD_ENABLED decides either way', () => {
    expect(managerSettings({ SERVER_ADDRESS: '0.0.0.0:4006' }).resultDownload).toEqual({ enabled: false });
    expect(managerSettings({ SERVER_ADDRESS: '0.0.0.0:4006', RESULT_DOWNLOAD_ENABLED: 'true' }).resultDownload).toEqual({ enabled: true });
    expect(managerSettings({ RESULT_DOWNLOAD_ENABLED: 'false' }).resultDownload).toEqual({ enabled: false });
  });
});
