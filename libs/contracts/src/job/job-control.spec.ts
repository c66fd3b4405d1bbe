import { buildJobCancelMessage, canceledEventPayload, parseJobControlMessage } from './job-control';
import { decodeJobDocument } from './job-document';
import { uuidToBinary } from '../ids/uuid-binary';

const id = '0b7f3a52-52a1-4c55-9d2e-8d3a8f1c2b10';

describe('job control contract', () => {
  it('parses the cancel message it builds', () => {
    const at = new Date('2026-12-05T10:00:00.000Z');
    expect(parseJobControlMessage(buildJobCancelMessage(id, at))).toEqual({ type: 'job.cancel', jobId: id, requestedAt: at });
  });

  it.each([
    ['not JSON', '{'],
    ['an array', '[]'],
    ['another type', JSON.stringify({ type: 'job.pause', jobId: id, requestedAt: '2026-12-05T10:00:00Z' })],
    ['a bad id', JSON.stringify({ type: 'job.cancel', jobId: 'x', requestedAt: '2026-12-05T10:00:00Z' })],
    ['a bad date', JSON.stringify({ type: 'job.cancel', jobId: id, requestedAt: 'soon' })],
  ])('refuses %s', (_label, body) => {
    expect(parseJobControlMessage(body)).toBeUndefined();
  });

  it('writes the canceled event with a fixed key order', () => {
    const body = canceledEventPayload(id, { source: 'crm' }, { tablesDone: 1, rowsSoFar: 20, durationMs: 5 }, new Date('2026-12-05T10:00:00.000Z'));
    expect(body).toBe(`{"jobId":"${id}","metadata":{"source":"crm"},"status":"canceled","progress":{"tablesDone":1,"rowsSoFar":20},"durationMs":5,"canceledAt":"2026-12-05T10:00:00.000Z"}`);
  });

  it('reads the job-control fields of a job document', () => {
    const at = new Date('2026-12-05T10:00:00.000Z');
    const record = decodeJobDocument({ _id: uuidToBinary(id), status: 'processing', cancel_requested_at: at, retry_of: 'a', retried_by: 'b', datasources: ['crm', 3] });
    expect(record).toMatchObject({ cancelRequestedAt: at, retryOf: 'a', retriedBy: 'b', datasources: ['crm'] });
  });
});
