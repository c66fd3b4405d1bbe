import { InMemoryJobRepository } from './in-memory-job-repository';
import { jobRepositoryContract } from './job-repository.contract';

describe(InMemoryJobRepository.name, () => {
  jobRepositoryContract(() => new InMemoryJobRepository());
});
