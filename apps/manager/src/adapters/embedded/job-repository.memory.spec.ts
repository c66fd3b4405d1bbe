import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobTable } from '@fetcher/contracts';
import { jobRepositoryContract } from '../../testing/job-repository.contract';
import { MemoryJobRepository } from './job-repository.memory';

describe(MemoryJobRepository.name, () => {
  describe('on a data directory (the standalone service)', () => {
    const dirs: string[] = [];
    afterAll(() => {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    // Each repository gets its own data directory: the table writes every change to disk.
    jobRepositoryContract(async () => {
      const dir = mkdtempSync(join(tmpdir(), 'fetcher-job-contract-'));
      dirs.push(dir);
      return new MemoryJobRepository(await JobTable.open(join(dir, 'jobs')));
    });
  });

  describe('in memory only (the unit specs\' fake)', () => {
    jobRepositoryContract(() => new MemoryJobRepository(JobTable.inMemory()));
  });
});
