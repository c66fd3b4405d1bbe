import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobRepositoryContract } from '@fetcher/manager/testing';
import { MemoryJobRepository } from './job-repository.memory';
import { JobTable } from './job-table';

describe(MemoryJobRepository.name, () => {
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
