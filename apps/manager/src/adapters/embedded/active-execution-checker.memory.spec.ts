import { JobTable } from '@fetcher/contracts';
import { activeExecutionCheckerContract } from '../../testing/active-execution-checker.contract';
import { MemoryActiveExecutionChecker } from './active-execution-checker.memory';
import { MemoryJobRepository } from './job-repository.memory';

describe(`${MemoryActiveExecutionChecker.name}: the active execution checker contract`, () => {
  activeExecutionCheckerContract(() => {
    const table = JobTable.inMemory();
    return { checker: new MemoryActiveExecutionChecker(table), jobs: new MemoryJobRepository(table) };
  });
});
