import { MalformedMessageError, parseJobMessage, recoverJobId } from './job-message';

const ID = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

describe(parseJobMessage.name, () => {
  it('reads the fields the worker needs and ignores createdAt', () => {
    const body = { createdAt: 'x', filters: { a: { t: { f: { eq: [1] } } } }, jobId: ID.toUpperCase(), mappedFields: { a: { t: ['f'] } }, metadata: { source: 's' } };
    expect(parseJobMessage(Buffer.from(JSON.stringify(body)))).toEqual({ jobId: ID, mappedFields: body.mappedFields, filters: body.filters, metadata: { source: 's' } });
  });

  it.each([
    ['null', 'FET-0050: message payload is null'],
    [`{"jobId":"00000000-0000-0000-0000-000000000000","mappedFields":{"a":{"t":["f"]}}}`, 'FET-0051: message has no valid job id'],
    [`{"mappedFields":{"a":{"t":["f"]}}}`, 'FET-0051: message has no valid job id'],
    [`{"jobId":"${ID}"}`, 'FET-0052: mappedFields cannot be empty'],
    [`{"jobId":"${ID}","mappedFields":{"a":{}}}`, 'FET-0053: datasource has no tables'],
    [`{"jobId":"${ID}","mappedFields":{"a":{"t":[1]}}}`, 'message body is not a valid job message'],
    [`{"jobId":"${ID}","mappedFields":[]}`, 'message body is not a valid job message'],
    ['not json', 'message body is not a valid job message'],
    ['[1]', 'message body is not a valid job message'],
  ])('%s -> %s', (body, text) => {
    try {
      parseJobMessage(Buffer.from(body));
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(MalformedMessageError);
      expect((error as MalformedMessageError).render()).toBe(text);
    }
  });
});

describe('a malformed body', () => {
  it.each([
    ['not json', 'malformed_json'],
    ['null', 'malformed_null'],
    ['{}', 'malformed_job_id'],
    [`{"jobId":"${ID}","mappedFields":{}}`, 'malformed_mapped_fields'],
    [`{"jobId":"${ID}","mappedFields":{"a":{}}}`, 'malformed_tables'],
  ])('%s is counted as %s', (body, reason) => {
    expect(() => parseJobMessage(Buffer.from(body))).toThrow(expect.objectContaining({ reason }));
  });

  it('is not UTF-8: no replacement characters, no job', () => {
    const body = Buffer.concat([Buffer.from(`{"jobId":"${ID}","mappedFields":{"a`), Buffer.from([0xc3, 0x28]), Buffer.from('":{"t":["f"]}}}')]);
    expect(() => parseJobMessage(body)).toThrow(expect.objectContaining({ reason: 'malformed_json' }));
  });
});

describe(recoverJobId.name, () => {
  it('prefers the header, then a partial decode, then the pattern', () => {
    const other = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c';
    expect(recoverJobId(Buffer.from(`{"jobId":"${other}"}`), ID)).toBe(ID);
    expect(recoverJobId(Buffer.from(`{"jobId":"${other}","mappedFields":5}`), undefined)).toBe(other);
    expect(recoverJobId(Buffer.from(`{"jobId" :  "${other}", broken`), 'not-a-uuid')).toBe(other);
    expect(recoverJobId(Buffer.from('garbage'), undefined)).toBeUndefined();
  });
});
