import { join } from 'node:path';
import { resultLocation, spoolPath } from './result-location';

const JOB = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

describe(resultLocation.name, () => {
  it.each([
    ['no tenant, a prefix', '', 'results/', `external-data/${JOB}.json`, `results/external-data/${JOB}.json`],
    ['a tenant, a prefix', 'acme', 'results/', `acme/external-data/${JOB}.json`, `results/acme/external-data/${JOB}.json`],
    ['a tenant, no prefix', 'acme', '', `acme/external-data/${JOB}.json`, `acme/external-data/${JOB}.json`],
    ['a prefix with leading slashes', '', '//r/', `external-data/${JOB}.json`, `r/external-data/${JOB}.json`],
  ])('%s', (_name, tenantHeader, prefix, resultPath, objectKey) => {
    expect(resultLocation(tenantHeader, JOB, prefix)).toEqual({ resultPath, objectKey });
  });
});

describe(spoolPath.name, () => {
  it('names the file after the job and the lease, so two runs of a job never share one', () => {
    expect(spoolPath('/spool', JOB, 'tok')).toBe(join('/spool', `${JOB}-tok.b64`));
  });
});
