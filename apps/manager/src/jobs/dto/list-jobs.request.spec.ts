import { AppError } from '../../errors/app-error';
import { decodeJobCursor, encodeJobCursor } from './job-cursor';
import { parseListJobsRequest } from './list-jobs.request';

const ID = '0192a3b4-c5d6-7e8f-9a0b-1c2d3e4f5a6b';

function codeOf(query: Record<string, unknown>): string | undefined {
  try {
    parseListJobsRequest(query);
    return undefined;
  } catch (error) {
    return error instanceof AppError ? error.code : 'not an AppError';
  }
}

describe(parseListJobsRequest.name, () => {
  it('defaults to a page of 20 without filters', () => {
    expect(parseListJobsRequest({})).toEqual({ limit: 20 });
  });

  it('takes status repeated and comma-separated, in any case, once each', () => {
    expect(parseListJobsRequest({ status: ['failed', 'Canceled,failed'] }).statuses).toEqual(['failed', 'canceled']);
    expect(parseListJobsRequest({ status: 'pending' }).statuses).toEqual(['pending']);
  });

  it('reads the creation range as RFC 3339 date-times or UTC dates', () => {
    expect(parseListJobsRequest({ createdFrom: '2026-01-31', createdTo: '2026-02-01T12:00:00+02:00' })).toMatchObject({
      createdFrom: new Date('2026-01-31T00:00:00Z'),
      createdTo: new Date('2026-02-01T10:00:00Z'),
    });
  });

  it('takes a configName, a limit up to 100 and a cursor it issued', () => {
    const cursor = encodeJobCursor({ createdAt: new Date('2026-01-01T00:00:00.123Z'), id: ID });
    expect(parseListJobsRequest({ configName: 'pg-main', limit: '100', cursor })).toEqual({
      configName: 'pg-main',
      limit: 100,
      after: { createdAt: new Date('2026-01-01T00:00:00.123Z'), id: ID },
    });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it.each([
    [{ status: 'running' }, 'FET-0416'],
    [{ status: 'failed,' }, 'FET-0416'],
    [{ createdFrom: 'yesterday' }, 'FET-0416'],
    [{ createdFrom: '2026-02-31' }, 'FET-0416'],
    [{ createdTo: '2026-01-01T00:00:00' }, 'FET-0416'], // no offset: ambiguous
    [{ createdFrom: '2026-01-02', createdTo: '2026-01-02' }, 'FET-0416'],
    [{ configName: 'a.b' }, 'FET-0416'],
    [{ configName: ['a', 'b'] }, 'FET-0416'],
    [{ limit: '0' }, 'FET-0416'],
    [{ limit: '1.5' }, 'FET-0416'],
    [{ limit: '101' }, 'FET-0406'],
    [{ cursor: 'not-a-cursor' }, 'FET-0417'],
    [{ cursor: Buffer.from('{"c":"2026-01-01","i":"x"}').toString('base64url') }, 'FET-0417'],
  ])('refuses %j with %s', (query, code) => {
    expect(codeOf(query)).toBe(code);
  });

  it('decodes nothing but the cursors it encodes', () => {
    expect(decodeJobCursor(Buffer.from(JSON.stringify({ c: '2026-01-01T00:00:00.000Z', i: ID })).toString('base64url'))).toEqual({
      createdAt: new Date('2026-01-01T00:00:00Z'),
      id: ID,
    });
    expect(decodeJobCursor(Buffer.from('[]').toString('base64url'))).toBeUndefined();
    expect(decodeJobCursor('')).toBeUndefined();
  });
});
