import { createHmac, randomBytes } from 'node:crypto';
import { completedPayload, failedPayload, jobEvent } from './job-events';

const JOB = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

describe('job events', () => {
  it('writes the completed payload in contract order and leaves zeros out', () => {
    const at = new Date('2026-11-29T10:00:01.234Z');
    const full = completedPayload(JOB, { source: 'reporter' }, { path: 'p', sizeBytes: 10, rowCount: 2, hmac: 'ab' }, 532, at);
    expect(full).toBe(
      `{"jobId":"${JOB}","metadata":{"source":"reporter"},"status":"completed","result":{"path":"p","sizeBytes":10,"rowCount":2,"format":"json","hmac":"ab",` +
        `"integrity":{"algorithm":"HMAC-SHA256","signature":"ab"},"protection":{"encrypted":true,"mode":"adapter-managed","appliedBy":"adapter"}},` +
        `"executionTimeMs":532,"completedAt":"2026-11-29T10:00:01.234Z"}`,
    );
    const empty = JSON.parse(completedPayload(JOB, {}, { path: 'p', sizeBytes: 0, rowCount: 0, hmac: 'ab' }, 0, at));
    expect(Object.keys(empty.result)).toEqual(['path', 'format', 'hmac', 'integrity', 'protection']);
    expect(empty).not.toHaveProperty('executionTimeMs');
  });

  it('adds cursors last, only for an incremental job, leaving every other byte as it was', () => {
    const at = new Date('2026-11-29T10:00:01.234Z');
    const result = { path: 'p', sizeBytes: 10, rowCount: 2, hmac: 'ab' };
    const plain = completedPayload(JOB, { source: 'reporter' }, result, 532, at);
    const cursors = { pg: { orders: { value: '2026-01-01T00:00:00Z', key: '7' }, empty: null } };
    const withCursors = completedPayload(JOB, { source: 'reporter' }, result, 532, at, cursors);
    expect(withCursors).toBe(`${plain.slice(0, -1)},"cursors":${JSON.stringify(cursors)}}`);
  });

  it('puts the error object into the failed metadata', () => {
    expect(JSON.parse(failedPayload(JOB, { source: 's' }, 'boom'))).toEqual({ jobId: JOB, metadata: { source: 's', error: { message: 'boom' } }, status: 'failed' });
  });

  it('signs the body with the external key over the events exchange and routing key, with a deterministic id', () => {
    const key = randomBytes(32);
    const payload = failedPayload(JOB, {}, 'x');
    const now = new Date('2026-03-01T10:00:00Z');
    const event = jobEvent(JOB, 'failed', payload, { exchange: 'fetcher.job.events', source: '//src', key, signedTenant: '', eventTenant: 'single-tenant', now });
    expect(event.routingKey).toBe('job.failed');
    expect(event.body.toString()).toBe(payload);
    const h = event.headers as Record<string, unknown>;
    expect(String(h['ce-id'])).toBe(`fetcher.job.failed.${JOB}`);
    expect(String(h['ce-type'])).toBe('studio.lerian.job.failed');
    expect(Buffer.isBuffer(h['ce-tenantid'])).toBe(true);
    expect(h.t).toBe(String(now.getTime() / 1000));
    const expected = createHmac('sha256', key).update(`${String(h.t)}\nv1\n\n${JOB}\nfetcher.job.events\njob.failed\n`).update(event.body).digest('hex');
    expect(h['x-message-signature']).toBe(expected);
  });
});
