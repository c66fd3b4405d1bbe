import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobTable } from '@fetcher/contracts';
import { type Job, MemoryActiveExecutionChecker, MemoryJobRepository } from '@fetcher/manager';
import { MemoryJobStore } from '@fetcher/worker';

const tenant = { tenantId: 'default' };
const T0 = new Date('2026-01-01T00:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

function aJob(overrides: Partial<Job> = {}): Job {
  return {
    id: '0193a1b2-0000-7000-8000-000000000001',
    status: 'pending',
    mappedFields: { demo: { 'shop.customers': ['id'] } },
    metadata: { source: 'demo' },
    requestHash: 'h1',
    createdAt: T0,
    completedAt: null,
    dispatchedAt: null,
    dispatchAttempts: 0,
    ...overrides,
  };
}

describe('the standalone job table behind the Manager and Worker ports', () => {
  let dir: string;
  let table: JobTable;
  let repository: MemoryJobRepository;
  let store: MemoryJobStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fetcher-jobs-'));
    table = await JobTable.open(join(dir, 'jobs'));
    repository = new MemoryJobRepository(table);
    store = new MemoryJobStore(table);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a second active job with the same request hash, and allows one once the first failed', async () => {
    expect(await repository.insert(tenant, aJob())).toBe('inserted');
    expect(await repository.insert(tenant, aJob({ id: '0193a1b2-0000-7000-8000-000000000002' }))).toBe('duplicate_active');
    expect(await repository.markDispatchFailed(tenant, aJob().id, 'process failed: unable to publish', at(1))).toBe(true);
    expect(await repository.insert(tenant, aJob({ id: '0193a1b2-0000-7000-8000-000000000003' }))).toBe('inserted');
  });

  it('re-dispatch claims count across a restart, and a job the sweep fails hands its event to the Worker\'s repairer', async () => {
    const id = aJob().id;
    await repository.insert(tenant, aJob({ dispatchedAt: at(0), dispatchAttempts: 1 }));
    const claim = { dispatchedBefore: at(601), now: at(601), lockUntil: at(661) };
    expect(await repository.claimStale(tenant, claim)).toMatchObject({ job: { id }, redispatches: 0 });
    expect(await repository.claimStale(tenant, claim)).toBeUndefined();
    await table.flush();
    const reopened = new MemoryJobRepository(await JobTable.open(join(dir, 'jobs')));
    expect(await reopened.claimStale(tenant, { ...claim, now: at(662), lockUntil: at(722) })).toMatchObject({ redispatches: 1 });

    expect(await repository.markDispatchFailed(tenant, id, 'gone', at(700), '{"status":"failed"}')).toBe(true);
    expect(await store.pendingEvents(25)).toMatchObject([{ id, status: 'failed', metadata: { terminalEventStatus: 'failed', terminalEventPayload: '{"status":"failed"}' } }]);
    expect((await repository.findById(tenant, id))?.metadata).toEqual({ source: 'demo', error: 'gone' });
  });

  it('runs a job through lease, progress and terminal write, and shows the Manager the result without the outbox marker', async () => {
    await repository.insert(tenant, aJob());
    const lease = { token: 'lease-1', owner: 'w1', expiresAt: at(60) };
    expect(await store.acquire(aJob().id, lease, at(1))).toMatchObject({ job: { status: 'processing', lease }, takeover: false });
    expect(await store.acquire(aJob().id, { ...lease, token: 'lease-2' }, at(2))).toBeUndefined();
    expect(await new MemoryActiveExecutionChecker(table).hasActiveExecutions(tenant, 'demo')).toBe(true);

    const write = { status: 'completed' as const, completedAt: at(5), resultPath: 'external-data/x.json', resultHmac: 'ab'.repeat(32), eventPayload: '{"status":"completed"}' };
    expect(await store.writeTerminal(aJob().id, { kind: 'lease', token: 'lease-2' }, write)).toBe(false);
    expect(await store.writeTerminal(aJob().id, { kind: 'lease', token: 'lease-1' }, write)).toBe(true);
    expect(await store.pendingEvents(25)).toHaveLength(1);

    const seen = await repository.findById(tenant, aJob().id);
    expect(seen).toMatchObject({ status: 'completed', resultPath: 'external-data/x.json', resultHmac: 'ab'.repeat(32), completedAt: at(5) });
    expect(seen?.metadata).toEqual({ source: 'demo' });
    await store.clearEventMarker(aJob().id);
    expect(await store.pendingEvents(25)).toHaveLength(0);
    expect(await new MemoryActiveExecutionChecker(table).hasActiveExecutions(tenant, 'demo')).toBe(false);
  });

  it('keeps every acknowledged change across a reopen, in a file the CLI can read', async () => {
    await repository.insert(tenant, aJob());
    await store.acquire(aJob().id, { token: 't', owner: 'w', expiresAt: at(60) }, at(1));
    await store.writeTerminal(aJob().id, { kind: 'lease', token: 't' }, { status: 'completed', completedAt: at(2), resultPath: 'external-data/a.json', resultHmac: 'cd'.repeat(32), eventPayload: '{}' });

    const reopened = new MemoryJobRepository(await JobTable.open(join(dir, 'jobs')));
    expect(await reopened.findById(tenant, aJob().id)).toMatchObject({ status: 'completed', createdAt: T0, completedAt: at(2) });
    const file = JSON.parse(readFileSync(join(dir, 'jobs', `${aJob().id}.json`), 'utf8'));
    expect(file).toMatchObject({ status: 'completed', resultPath: 'external-data/a.json', resultHmac: 'cd'.repeat(32) });
  });

  it('lets the dispatch sweep claim an undispatched job once until its lock expires', async () => {
    await repository.insert(tenant, aJob());
    const claim = { createdBefore: at(61), now: at(61), lockUntil: at(121) };
    expect(await repository.claimUndispatched(tenant, claim)).toMatchObject({ id: aJob().id, dispatchAttempts: 0 });
    expect(await repository.claimUndispatched(tenant, claim)).toBeUndefined();
    expect(await repository.claimUndispatched(tenant, { ...claim, now: at(122) })).toMatchObject({ dispatchAttempts: 1 });
    await repository.markDispatched(tenant, aJob().id, at(123));
    expect(await repository.claimUndispatched(tenant, { ...claim, now: at(200) })).toBeUndefined();
  });

  it('finds processing jobs whose lease expired more than a TTL ago', async () => {
    await repository.insert(tenant, aJob());
    await store.acquire(aJob().id, { token: 't', owner: 'w', expiresAt: at(60) }, at(1));
    expect(await store.abandoned(at(100), 60_000, 600_000)).toHaveLength(0);
    expect(await store.abandoned(at(121), 60_000, 600_000)).toMatchObject([{ id: aJob().id }]);
  });
});
