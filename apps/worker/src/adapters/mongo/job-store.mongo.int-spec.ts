import { randomUUID } from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { withMongo, type MongoTestTarget } from '@fetcher/mongo-test-server';
import { type Db, MongoClient } from 'mongodb';
import { TerminalWriteRefused } from '../../ports/job-store.port';
import { jobStoreContract } from '../../testing/job-store.contract';
import { MongoJobStore } from './job-store.mongo';
import { encodeCancelRequest, encodeLease, uuidToBinary } from '@fetcher/contracts';

describe('MongoJobStore against the MongoDB test server', () => {
  let target: MongoTestTarget;
  let client: MongoClient;
  let db: Db;
  let sut: MongoJobStore;
  const now = new Date('2026-03-01T10:00:00Z');
  const later = (ms: number) => new Date(now.getTime() + ms);

  beforeAll(async () => {
    target = await withMongo();
    client = await new MongoClient(target.uri).connect();
    db = client.db(`worker_jobs_${randomUUID().slice(0, 8)}`);
    sut = new MongoJobStore(db);
  });

  afterAll(async () => {
    await db?.dropDatabase().catch(() => undefined);
    await client?.close();
    await target?.close();
  });

  const seed = async (status = 'pending', extra: Record<string, unknown> = {}, subtype = 0) => {
    const id = randomUUID();
    await db.collection('job').insertOne({ _id: uuidToBinary(id, subtype), status, dedup_active: status === 'pending' || status === 'processing', metadata: { source: 'reporter' }, created_at: now, ...extra } as never);
    return id;
  };
  const raw = (id: string) => db.collection('job').findOne({ _id: uuidToBinary(id) } as never);

  describe('the job store contract', () => {
    jobStoreContract(() => ({
      store: sut,
      seed: async ({ id, status, createdAt, lease, cancelRequestedAt, metadata }) => {
        await db.collection('job').insertOne({
          _id: uuidToBinary(id),
          status,
          dedup_active: status === 'pending' || status === 'processing',
          metadata: { source: 'reporter', ...metadata },
          mapped_fields: { crm: { users: ['id'] } },
          created_at: createdAt,
          ...(lease ? { lease: encodeLease(lease) } : {}),
          ...(cancelRequestedAt ? encodeCancelRequest(cancelRequestedAt) : {}),
        } as never);
      },
    }));
  });

  it('finds jobs stored with either UUID subtype', async () => {
    const zero = await seed('pending', {}, 0);
    const four = await seed('pending', {}, 4);
    expect((await sut.find(zero))?.id).toBe(zero);
    expect((await sut.find(four))?.id).toBe(four);
    expect(await sut.find(randomUUID())).toBeUndefined();
  });

  it('hands out the stored request with the job, as the Manager stored it', async () => {
    const request = { mapped_fields: { 'pg-main': { 'public.users': ['id'] } }, filters: { 'pg-main': { 'public.users': { id: { gt: [5] } } } } };
    const id = await seed('pending', request);
    const expected = { mappedFields: request.mapped_fields, filters: request.filters };
    expect(await sut.find(id)).toMatchObject(expected);
    expect(await sut.acquire(id, { token: 'a', owner: 'w1', expiresAt: later(60_000) }, now)).toMatchObject({ job: expected });
  });

  it('reports a terminal write the server refuses as TerminalWriteRefused', async () => {
    // A document the test server cannot rewrite (it overflows its stack on a filter nested 3,000 deep),
    // as MongoDB refuses a document that would pass its size or nesting limits.
    let deep: Record<string, unknown> = { eq: [1] };
    for (let i = 0; i < 3_000; i++) deep = { a: deep };
    const id = await seed('processing', { filters: { pg: deep }, lease: { token: 't', owner: 'w', expires_at: later(60_000) } });
    const write = { status: 'failed' as const, completedAt: now, error: 'e', eventPayload: '{}' };
    await expect(sut.writeTerminal(id, { kind: 'lease', token: 't' }, write)).rejects.toBeInstanceOf(TerminalWriteRefused);
  });

  it('does not call an unreachable database a refusal', async () => {
    const closed = await new MongoClient(target.uri).connect();
    const store = new MongoJobStore(closed.db(db.databaseName));
    await closed.close();
    const write = { status: 'failed' as const, completedAt: now, error: 'e', eventPayload: '{}' };
    const outcome = await store.writeTerminal(await seed('pending'), { kind: 'pending' }, write).catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(Error);
    expect(outcome).not.toBeInstanceOf(TerminalWriteRefused);
  });

  it('acquires a pending job once: the second acquire loses', async () => {
    const id = await seed();
    const first = await sut.acquire(id, { token: 'a', owner: 'w1', expiresAt: later(60_000) }, now);
    const second = await sut.acquire(id, { token: 'b', owner: 'w2', expiresAt: later(60_000) }, now);
    expect(first).toMatchObject({ job: { status: 'processing', lease: { token: 'a', owner: 'w1' } }, takeover: false });
    expect(second).toBeUndefined();
    expect(await raw(id)).toMatchObject({ status: 'processing', dedup_active: true });
  });

  it('takes over only an expired or missing lease', async () => {
    const expired = await seed('processing', { lease: { token: 'old', owner: 'w0', expires_at: later(-1) } });
    const live = await seed('processing', { lease: { token: 'old', owner: 'w0', expires_at: later(5_000) } });
    const leaseless = await seed('processing');
    const lease = { token: 'new', owner: 'w1', expiresAt: later(60_000) };
    expect(await sut.acquire(expired, lease, now)).toMatchObject({ job: { lease: { token: 'new' } }, takeover: true });
    expect(await sut.acquire(live, lease, now)).toBeUndefined();
    expect(await sut.acquire(leaseless, lease, now)).toMatchObject({ job: { lease: { token: 'new' } }, takeover: true });
  });

  it('takes over a job that had completed_at set, and hands it out as the document now reads', async () => {
    const id = await seed('processing', { completed_at: later(-5), lease: { token: 'old', owner: 'w0', expires_at: later(-1) } });
    const acquired = await sut.acquire(id, { token: 'new', owner: 'w1', expiresAt: later(60_000) }, now);
    expect(acquired?.job).toEqual(await sut.find(id));
    expect(acquired?.job.completedAt).toBeUndefined();
    expect(await raw(id)).toMatchObject({ status: 'processing', dedup_active: true, lease: { token: 'new', owner: 'w1', expires_at: later(60_000) } });
  });

  it('renews and writes progress only under the exact token', async () => {
    const id = await seed();
    await sut.acquire(id, { token: 't', owner: 'w', expiresAt: later(1_000) }, now);
    expect(await sut.renew(id, 't', later(90_000))).toEqual({ held: true });
    expect(await sut.renew(id, 'other', later(90_000))).toEqual({ held: false });
    await sut.writeProgress(id, 't', { tablesDone: 1, rowsSoFar: 500, updatedAt: now });
    await sut.writeProgress(id, 'other', { tablesDone: 9, rowsSoFar: 9, updatedAt: now });
    expect(await raw(id)).toMatchObject({ lease: { expires_at: later(90_000) }, progress: { tables_done: 1, rows_so_far: 500, updated_at: now } });
  });

  it('writes the terminal state once, with the outbox marker, and clears the marker', async () => {
    const id = await seed();
    await sut.acquire(id, { token: 't', owner: 'w', expiresAt: later(60_000) }, now);
    const resultStats = { sizeBytes: 2048, rowCount: 30, rowCounts: { pg: 30 } };
    const write = { status: 'completed' as const, completedAt: later(5), resultPath: `external-data/${id}.json`, resultHmac: 'ab', resultStats, eventPayload: '{"x":1}' };
    expect(await sut.writeTerminal(id, { kind: 'lease', token: 'stale' }, write)).toBe(false);
    expect(await sut.writeTerminal(id, { kind: 'lease', token: 't' }, write)).toBe(true);
    expect(await sut.writeTerminal(id, { kind: 'lease', token: 't' }, write)).toBe(false);
    const doc = await raw(id);
    expect(doc).toMatchObject({
      status: 'completed', dedup_active: false, completed_at: later(5), result_path: `external-data/${id}.json`, result_hmac: 'ab',
      result_stats: { size_bytes: 2048, row_count: 30, row_counts: { pg: 30 } },
      metadata: { source: 'reporter', terminalEventPending: true, terminalEventStatus: 'completed', terminalEventPayload: '{"x":1}' },
    });
    expect(doc?.lease).toBeUndefined();
    expect((await sut.pendingEvents(25)).map((j) => j.id)).toContain(id);
    await sut.clearEventMarker(id);
    expect((await raw(id))?.metadata).toEqual({ source: 'reporter' });
  });

  it('fails only a still-pending job without a lease', async () => {
    const pending = await seed();
    const running = await seed('processing', { lease: { token: 't', owner: 'w', expires_at: later(60_000) } });
    const write = { status: 'failed' as const, completedAt: now, error: 'message expired before processing', eventPayload: '{}' };
    expect(await sut.writeTerminal(pending, { kind: 'pending' }, write)).toBe(true);
    expect(await sut.writeTerminal(running, { kind: 'pending' }, write)).toBe(false);
    expect(await raw(pending)).toMatchObject({ status: 'failed', metadata: { error: 'message expired before processing' } });
  });

  it('lists abandoned jobs for the reaper and fails them on the observed lease only', async () => {
    const gone = await seed('processing', { lease: { token: 'g', owner: 'w', expires_at: later(-120_000) } });
    const recent = await seed('processing', { lease: { token: 'r', owner: 'w', expires_at: later(-1_000) } });
    const legacy = await seed('processing', { created_at: later(-16 * 60_000) });
    const found = (await sut.abandoned(now, 60_000, 15 * 60_000)).map((j) => j.id);
    expect(found).toEqual(expect.arrayContaining([gone, legacy]));
    expect(found).not.toContain(recent);
    const write = { status: 'failed' as const, completedAt: now, error: 'processing lease expired', eventPayload: '{}' };
    expect(await sut.writeTerminal(gone, { kind: 'observed', token: 'other' }, write)).toBe(false);
    expect(await sut.writeTerminal(gone, { kind: 'observed', token: 'g' }, write)).toBe(true);
    expect(await sut.writeTerminal(legacy, { kind: 'observed', token: undefined }, write)).toBe(true);
  });

  it('creates the indexes of its reaper and repairer on their first query, and only those', async () => {
    const own = client.db(`worker_idx_${randomUUID().slice(0, 8)}`);
    try {
      const store = new MongoJobStore(own);
      await store.abandoned(now, 60_000, 60_000);
      await store.pendingEvents(10);
      const indexes = await own.collection('job').listIndexes().toArray();
      expect(indexes.map((i) => i.name as string).sort()).toEqual(['_id_', 'idx_job_lease_expiry', 'idx_job_terminal_event_repair']);
      expect(indexes.find((i) => i.name === 'idx_job_lease_expiry')).toMatchObject({
        key: { status: 1, 'lease.expires_at': 1 },
        partialFilterExpression: { status: 'processing' },
      });
      expect(indexes.find((i) => i.name === 'idx_job_terminal_event_repair')).toMatchObject({
        key: { 'metadata.terminalEventPending': 1, status: 1, completed_at: 1, created_at: 1 },
        partialFilterExpression: { 'metadata.terminalEventPending': true },
      });
    } finally {
      await own.dropDatabase();
    }
  });

  it('used only commands the server knows', () => expect(target.unknownCommands()).toEqual([]));
});
