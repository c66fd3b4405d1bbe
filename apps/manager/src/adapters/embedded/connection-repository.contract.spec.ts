import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectionRepositoryContract } from '../../testing/connection-repository.contract';
import { MemoryConnectionRepository } from './connection-repository.memory';

describe(`${MemoryConnectionRepository.name}: the connection repository contract`, () => {
  describe('on a data directory (the standalone service)', () => {
    const dirs: string[] = [];
    afterAll(() => {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    connectionRepositoryContract(() => {
      const dir = mkdtempSync(join(tmpdir(), 'fetcher-connection-contract-'));
      dirs.push(dir);
      return MemoryConnectionRepository.open(join(dir, 'connections'));
    });
  });

  describe("in memory only (the unit specs' fake)", () => {
    connectionRepositoryContract(() => MemoryConnectionRepository.inMemory());
  });
});
