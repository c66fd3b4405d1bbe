import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { JobTable } from '@fetcher/contracts';
import { MemoryConnectionRepository } from '@fetcher/manager';
import { FileEventLog, FileSystemResultStore } from '@fetcher/worker';
import { InProcessWorkQueue } from './adapters/in-process/work-queue';

/**
 * The data directory's layout. The CLI reads `master.key`, `jobs/` and `objects/` by the same names
 * (its integration test runs against a directory this service wrote).
 */
export const DATA_LAYOUT = Object.freeze({
  jobs: 'jobs',
  connections: 'connections',
  queue: 'queue',
  deadLetter: 'dead-letter',
  objects: 'objects',
  uploads: 'uploads',
  spool: 'spool',
  events: 'events.jsonl',
  /** The demo database's PostgreSQL files (PGlite). */
  demoDatabase: 'demo-db',
});

/** The embedded backends the Manager and the Worker share in one process, opened from the data directory. */
export interface Backends {
  readonly dataDir: string;
  readonly jobs: JobTable;
  readonly connections: MemoryConnectionRepository;
  readonly queue: InProcessWorkQueue;
  readonly results: FileSystemResultStore;
  readonly events: FileEventLog;
  /** Waits for every write in progress. */
  flush(): Promise<void>;
}

/** Opens (and restores) everything under `dataDir`, which is created with mode 0700 when missing. */
export async function openBackends(dataDir: string): Promise<Backends> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const jobs = await JobTable.open(join(dataDir, DATA_LAYOUT.jobs));
  const connections = await MemoryConnectionRepository.open(join(dataDir, DATA_LAYOUT.connections));
  const queue = await InProcessWorkQueue.open(join(dataDir, DATA_LAYOUT.queue), join(dataDir, DATA_LAYOUT.deadLetter));
  const results = new FileSystemResultStore(join(dataDir, DATA_LAYOUT.objects), join(dataDir, DATA_LAYOUT.uploads));
  await results.removeAbandonedWrites();
  const events = new FileEventLog(join(dataDir, DATA_LAYOUT.events));
  return {
    dataDir,
    jobs,
    connections,
    queue,
    results,
    events,
    flush: async () => {
      await Promise.all([jobs.flush(), connections.flush()]);
    },
  };
}
