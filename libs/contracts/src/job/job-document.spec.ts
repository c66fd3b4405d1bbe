import { Binary, Long } from 'mongodb';
import { decodeJobDocument, encodeLease, encodeNewJob, encodeProgress, encodeResultStats, terminalEventMarker } from './job-document';

const ID = '0190f3c2-7a1b-7c3d-8e4f-5a6b7c8d9e0f';
const at = new Date('2026-03-01T10:00:00Z');
const job = {
  id: ID,
  status: 'pending',
  mappedFields: { pg: { 'public.users': ['id'] } },
  metadata: { source: 'reporter' },
  requestHash: 'h',
  createdAt: at,
  completedAt: null,
  dispatchedAt: null,
  dispatchAttempts: 0,
};

describe('the job document', () => {
  it('is written with the stored field names, a subtype-0 id and dedup_active from the status', () => {
    const doc = encodeNewJob({ ...job, filters: {} });
    expect(doc._id).toEqual(new Binary(Buffer.from(ID.replace(/-/g, ''), 'hex'), 0));
    expect(doc).toEqual({
      _id: doc._id, metadata: job.metadata, mapped_fields: job.mappedFields, status: 'pending', dedup_active: true, request_hash: 'h',
      created_at: at, completed_at: null, dispatched_at: null, dispatch_attempts: 0, dispatch_lock_until: null, datasources: ['pg'],
    });
    expect(encodeNewJob({ ...job, status: 'failed', filters: { pg: { t: { id: { eq: [1] } } } } })).toMatchObject({ dedup_active: false, filters: { pg: { t: { id: { eq: [1] } } } } });
  });

  it('is read back field by field', () => {
    expect(decodeJobDocument(encodeNewJob(job))).toEqual({
      id: ID, status: 'pending', metadata: job.metadata, mappedFields: job.mappedFields, requestHash: 'h', createdAt: at, dispatchAttempts: 0, datasources: ['pg'],
    });
  });

  it('stores an incremental request, and reads it back with the cursors the Worker wrote', () => {
    const incremental = { pg: { users: { cursorField: 'id' } } };
    const doc = encodeNewJob({ ...job, incremental });
    expect(doc.incremental).toEqual(incremental);
    expect(encodeNewJob({ ...job, incremental: {} })).not.toHaveProperty('incremental');
    const cursors = { pg: { users: { value: '9', key: '9' } } };
    expect(decodeJobDocument({ ...doc, cursors })).toMatchObject({ incremental, cursors });
    expect(decodeJobDocument({ ...doc, cursors: 'x' })).not.toHaveProperty('cursors');
  });

  it('writes the sorted datasource names and the job a retry retries, and reads the job-control fields', () => {
    const retry = encodeNewJob({ ...job, mappedFields: { zz: {}, aa: {} }, retryOf: ID });
    expect(retry).toMatchObject({ datasources: ['aa', 'zz'], retry_of: ID });
    expect(decodeJobDocument({ ...retry, status: 'canceled', cancel_requested_at: at, retried_by: ID })).toMatchObject({
      status: 'canceled', cancelRequestedAt: at, retryOf: ID, retriedBy: ID, datasources: ['aa', 'zz'],
    });
    expect(encodeNewJob(job)).not.toHaveProperty('retry_of');
  });

  it('reads what the Worker writes: lease, progress (counters of any numeric BSON type), result and terminal marker', () => {
    const doc = {
      ...encodeNewJob(job),
      status: 'completed',
      lease: encodeLease({ token: 't', owner: 'w', expiresAt: at }),
      progress: { tables_done: Long.fromNumber(2), rows_so_far: 10n, updated_at: at },
      result_path: 'external-data/x.json',
      result_hmac: '',
      redispatch_count: 1,
      metadata: { source: 'reporter', error: 'x' },
    };
    expect(decodeJobDocument(doc)).toMatchObject({
      status: 'completed', lease: { token: 't', owner: 'w', expiresAt: at }, progress: { tablesDone: 2, rowsSoFar: 10, updatedAt: at },
      resultPath: 'external-data/x.json', redispatchCount: 1, metadata: { error: 'x' },
    });
    expect(decodeJobDocument(doc)).not.toHaveProperty('resultHmac');
    expect(encodeProgress({ tablesDone: 1, rowsSoFar: 5, updatedAt: at })).toEqual({ tables_done: 1, rows_so_far: 5, updated_at: at });
    expect(terminalEventMarker('failed', '{}')).toEqual({ 'metadata.terminalEventPending': true, 'metadata.terminalEventStatus': 'failed', 'metadata.terminalEventPayload': '{}' });
  });

  it('leaves out a lease or progress it cannot read, and keeps a stored request as it is', () => {
    const doc = { ...encodeNewJob(job), lease: { token: 't' }, progress: { tables_done: 'x' }, mapped_fields: null };
    const read = decodeJobDocument(doc);
    expect(read).not.toHaveProperty('lease');
    expect(read).not.toHaveProperty('progress');
    expect(read.mappedFields).toBeNull();
  });

  it("reads back the result's size and row counts as the Worker writes them, with counters of any numeric BSON type", () => {
    const stats = { sizeBytes: 1234, rowCount: 30, rowCounts: { pg: 20, mysql: 10 } };
    expect(encodeResultStats(stats)).toEqual({ size_bytes: 1234, row_count: 30, row_counts: { pg: 20, mysql: 10 } });
    expect(decodeJobDocument({ ...encodeNewJob(job), result_stats: encodeResultStats(stats) }).resultStats).toEqual(stats);
    const longs = { size_bytes: Long.fromNumber(5_000_000_000), row_count: 7n, row_counts: { pg: Long.fromNumber(7) } };
    expect(decodeJobDocument({ ...encodeNewJob(job), result_stats: longs }).resultStats).toEqual({ sizeBytes: 5_000_000_000, rowCount: 7, rowCounts: { pg: 7 } });
  });

  it('reads result stats with any part missing or of the wrong type as absent', () => {
    for (const bad of [null, 'x', { size_bytes: 1, row_count: 1 }, { size_bytes: '1', row_count: 1, row_counts: {} }, { size_bytes: 1, row_count: 1, row_counts: { pg: 'x' } }]) {
      expect(decodeJobDocument({ ...encodeNewJob(job), result_stats: bad })).not.toHaveProperty('resultStats');
    }
  });

  it('refuses a document whose id is not a UUID', () => {
    expect(() => decodeJobDocument({ _id: new Binary(Buffer.alloc(12), 0), status: 'pending' })).toThrow('id is not a UUID');
  });
});
