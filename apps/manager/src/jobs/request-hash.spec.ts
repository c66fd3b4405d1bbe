import { createHash } from 'node:crypto';
import type { Job } from './job';
import { buildJobMessage } from '@fetcher/contracts';
import { requestHash } from './request-hash';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe(requestHash.name, () => {
  it('hashes the canonical request, keys sorted at every depth, empty parts left out', () => {
    const hash = requestHash({ mappedFields: { b: { t: ['y', 'x'] }, a: { t: ['z'] } }, filters: {}, metadata: { source: 's', a: 1 } });
    expect(hash).toBe(sha('{"dataRequest":{"mappedFields":{"a":{"t":["z"]},"b":{"t":["y","x"]}}},"metadata":{"a":1,"source":"s"}}'));
    expect(requestHash({ mappedFields: { a: { t: ['z'] } }, metadata: {} })).toBe(sha('{"dataRequest":{"mappedFields":{"a":{"t":["z"]}}}}'));
  });

  it('includes the filters when there are some', () => {
    const hash = requestHash({ mappedFields: { a: { t: ['z'] } }, filters: { a: { t: { z: { eq: [1] } } } } });
    expect(hash).toBe(sha('{"dataRequest":{"filters":{"a":{"t":{"z":{"eq":[1]}}}},"mappedFields":{"a":{"t":["z"]}}}}'));
  });
});

describe(buildJobMessage.name, () => {
  const job: Job = {
    id: '0193a1b2-0000-7000-8000-000000000001',
    status: 'pending',
    mappedFields: { 'pg-main': { transactions: ['id', 'amount'] } },
    metadata: { source: 'reporter' },
    requestHash: 'h',
    createdAt: new Date('2026-11-29T10:00:00.123Z'),
    completedAt: null,
    dispatchedAt: null,
    dispatchAttempts: 0,
  };

  it('writes the sorted keys without whitespace and leaves out empty filters', () => {
    expect(buildJobMessage(job).toString()).toBe(
      '{"createdAt":"2026-11-29T10:00:00.123Z","jobId":"0193a1b2-0000-7000-8000-000000000001","mappedFields":{"pg-main":{"transactions":["id","amount"]}},"metadata":{"source":"reporter"}}',
    );
  });

  it('puts the filters between createdAt and jobId', () => {
    const body = buildJobMessage({ ...job, filters: { 'pg-main': { transactions: { status: { eq: ['completed'] } } } } }).toString();
    expect(body).toMatch(/^\{"createdAt":"[^"]+","filters":\{"pg-main":\{"transactions":\{"status":\{"eq":\["completed"\]\}\}\}\},"jobId":/);
  });
});
