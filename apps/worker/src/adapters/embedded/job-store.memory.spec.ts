import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobTable } from '@fetcher/contracts';
import { jobStoreContract, type SeededJob } from '../../testing/job-store.contract';
import { MemoryJobStore } from './job-store.memory';

/** The job as the embedded Manager's repository would have stored it. */
const seeder = (table: JobTable) => async (job: SeededJob) =>
  table.add({
    ...job,
    mappedFields: { crm: { users: ['id'] } },
    metadata: { source: 'reporter', ...job.metadata },
    requestHash: `hash-${job.id}`,
    completedAt: null,
    dispatchedAt: job.createdAt,
    dispatchAttempts: 1,
    dispatchLockUntil: null,
  });

describe(MemoryJobStore.name, () => {
  describe('on a data directory (the standalone service)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fetcher-job-store-contract-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    jobStoreContract(async () => {
      const table = await JobTable.open(join(dir, 'jobs'));
      return { store: new MemoryJobStore(table), seed: seeder(table) };
    });
  });

  describe("in memory only (the unit specs' fake)", () => {
    jobStoreContract(() => {
      const table = JobTable.inMemory();
      return { store: new MemoryJobStore(table), seed: seeder(table) };
    });
  });

  it("keeps a completed job's result stats in the shared table, where the embedded Manager reads them", async () => {
    const table = JobTable.inMemory();
    const store = new MemoryJobStore(table);
    const createdAt = new Date('2026-03-01T10:00:00Z');
    await seeder(table)({ id: 'j1', status: 'pending', createdAt });
    await store.acquire('j1', { token: 't', owner: 'w', expiresAt: new Date(createdAt.getTime() + 60_000) }, createdAt);
    const resultStats = { sizeBytes: 2048, rowCount: 30, rowCounts: { crm: 30 } };
    await store.writeTerminal('j1', { kind: 'lease', token: 't' }, { status: 'completed', completedAt: createdAt, resultPath: 'p', resultHmac: 'h', resultStats, eventPayload: '{}' });
    expect(table.get('j1')?.resultStats).toEqual(resultStats);
  });
});
