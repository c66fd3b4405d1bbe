import { buildJobMessage, JobMessageError, parseJobMessage, recoverJobId, storedJobRequest } from './job-message';

const ID = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const job = {
  id: ID,
  createdAt: new Date('2026-03-01T10:00:00.000Z'),
  mappedFields: { pg: { 'public.users': ['name', 'id'] } },
  metadata: { source: 'reporter', b: 1 },
};

describe('the job message', () => {
  it('is written as sorted, compact JSON, filters left out when there are none', () => {
    expect(buildJobMessage({ ...job, filters: {} }).toString('utf8')).toBe(
      `{"createdAt":"2026-03-01T10:00:00.000Z","jobId":"${ID}","mappedFields":{"pg":{"public.users":["name","id"]}},"metadata":{"b":1,"source":"reporter"}}`,
    );
  });

  it('carries the filters between createdAt and jobId when there are some', () => {
    const filters = { pg: { 'public.users': { id: { gt: [5] } } } };
    expect(buildJobMessage({ ...job, filters }).toString('utf8')).toBe(
      `{"createdAt":"2026-03-01T10:00:00.000Z","filters":{"pg":{"public.users":{"id":{"gt":[5]}}}},"jobId":"${ID}",` +
        `"mappedFields":{"pg":{"public.users":["name","id"]}},"metadata":{"b":1,"source":"reporter"}}`,
    );
  });

  it('carries incremental (between filters and jobId) only for an incremental job, and reads it back; a malformed one is refused, not dropped', () => {
    const incremental = { pg: { 'public.users': { cursorField: 'id', after: { value: '5', key: '5' } } } };
    const body = buildJobMessage({ ...job, incremental });
    expect(body.toString('utf8')).toBe(
      `{"createdAt":"2026-03-01T10:00:00.000Z","incremental":{"pg":{"public.users":{"after":{"key":"5","value":"5"},"cursorField":"id"}}},"jobId":"${ID}",` +
        `"mappedFields":{"pg":{"public.users":["name","id"]}},"metadata":{"b":1,"source":"reporter"}}`,
    );
    expect(parseJobMessage(body)).toEqual({ jobId: ID, mappedFields: job.mappedFields, incremental, metadata: job.metadata });
    expect(buildJobMessage({ ...job, incremental: {} }).equals(buildJobMessage(job))).toBe(true);
    expect(() => parseJobMessage(Buffer.from(`{"jobId":"${ID}","mappedFields":{"a":{"t":["f"]}},"incremental":[1]}`))).toThrow(expect.objectContaining({ problem: 'json' }));
    expect(storedJobRequest({ a: { t: ['f'] } }, undefined, { a: { t: { cursorField: 'f' } } })).toEqual({ mappedFields: { a: { t: ['f'] } }, incremental: { a: { t: { cursorField: 'f' } } } });
  });

  it('is read back as the job it was written from', () => {
    const filters = { pg: { 'public.users': { id: { gt: [5] } } } };
    expect(parseJobMessage(buildJobMessage({ ...job, filters }))).toEqual({ jobId: ID, mappedFields: job.mappedFields, filters, metadata: job.metadata });
  });

  it.each([
    ['null', 'null_payload'],
    ['not json', 'json'],
    ['[1]', 'json'],
    ['{}', 'invalid_job_id'],
    [`{"jobId":"00000000-0000-0000-0000-000000000000","mappedFields":{"a":{"t":["f"]}}}`, 'invalid_job_id'],
    [`{"jobId":"${ID}"}`, 'empty_mapped_fields'],
    [`{"jobId":"${ID}","mappedFields":{"a":{}}}`, 'datasource_without_tables'],
    [`{"jobId":"${ID}","mappedFields":{"a":{"t":[1]}}}`, 'json'],
    [`{"jobId":"${ID}","mappedFields":{"a":{"t":["f"]}},"metadata":[1]}`, 'json'],
    [`{"jobId":"${ID}","mappedFields":{"a":{"t":["f"]}},"filters":"x"}`, 'json'],
  ])('%s is refused as %s', (body, problem) => {
    expect(() => parseJobMessage(Buffer.from(body))).toThrow(expect.objectContaining({ problem }));
  });

  it('refuses a body that is not UTF-8', () => {
    const body = Buffer.concat([Buffer.from(`{"jobId":"${ID}","mappedFields":{"a`), Buffer.from([0xc3, 0x28]), Buffer.from('":{"t":["f"]}}}')]);
    expect(() => parseJobMessage(body)).toThrow(JobMessageError);
  });

  it('checks a stored request like a body, as a plain copy', () => {
    const mapped = { a: { t: ['f'] } };
    const read = storedJobRequest(mapped, undefined);
    expect(read).toEqual({ mappedFields: mapped });
    expect(read.mappedFields).not.toBe(mapped);
    expect(() => storedJobRequest({ a: { t: [1n] } }, undefined)).toThrow(expect.objectContaining({ problem: 'json' }));
  });

  it('recovers the job id of a broken body: header, then partial decode, then pattern', () => {
    const other = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c';
    expect(recoverJobId(Buffer.from(`{"jobId":"${other}"}`), ID)).toBe(ID);
    expect(recoverJobId(Buffer.from(`{"jobId":"${other}","mappedFields":5}`), undefined)).toBe(other);
    expect(recoverJobId(Buffer.from(`{"jobId" :  "${other}", broken`), 'not-a-uuid')).toBe(other);
    expect(recoverJobId(Buffer.from('garbage'), undefined)).toBeUndefined();
  });
});
