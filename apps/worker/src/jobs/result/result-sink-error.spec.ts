import { S3ServiceException } from '@aws-sdk/client-s3';
import { EngineError, ErrorText } from '@fetcher/engine';
import { retryAfterMs } from '../../adapters/s3/result-store.s3';
import { ResultStoreRefused, ResultStoreThrottled } from '../../ports/result-store.port';
import { failureText } from '../error-text';
import { RESULT_SINK_TEXT, ResultSinkError, resultSinkErrorOf, spoolError, storageError } from './result-sink-error';
import { honourRetryAfter } from './result-uploader';
import { MAX_RETRY_AFTER_MS, withRetries } from './retry';

const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: open '/var/spool/secret-path'`), { code });

describe('result sink errors', () => {
  it.each([
    ['ENOSPC', 'spool_full'],
    ['EDQUOT', 'spool_full'],
    ['EACCES', 'spool_unwritable'],
    ['EPERM', 'spool_unwritable'],
    ['EROFS', 'spool_unwritable'],
    ['EIO', 'spool_io'],
  ])('a spool failure %s is %s', (code, reason) => {
    expect(spoolError(errno(code)).reason).toBe(reason);
  });

  it.each([
    ['ResultStoreThrottled', new ResultStoreThrottled(), 'storage_throttled'],
    ['ResultStoreRefused', new ResultStoreRefused(), 'storage_refused'],
    ['any other error', new Error('socket hang up'), 'storage_unavailable'],
  ])('a store failure is told apart by its type: %s', (_name, error, reason) => {
    expect(storageError(error).reason).toBe(reason);
  });

  it('a spool failure inside an upload attempt stays a spool failure', () => {
    const spool = spoolError(errno('ENOSPC'));
    expect(storageError(spool)).toBe(spool);
  });

  it('the job failure text names the reason behind the engine error, never the path', () => {
    const wrapped = new EngineError('unavailable', ErrorText.persistFailed, spoolError(errno('ENOSPC')));
    const text = failureText(wrapped);
    expect(text).toBe(`engine extraction: engine: [unavailable] failed to persist extraction result: ${RESULT_SINK_TEXT.spool_full}`);
    expect(text).not.toMatch(/secret-path|ENOSPC/);
    expect(resultSinkErrorOf(wrapped)).toBeInstanceOf(ResultSinkError);
  });

  it('an engine error without a sink failure keeps its own text', () => {
    expect(failureText(new EngineError('unavailable', ErrorText.persistFailed, new Error('x')))).toBe('engine extraction: engine: [unavailable] failed to persist extraction result');
  });
});

describe('waiting as a throttled store asks', () => {
  it('waits the Retry-After when it is longer than the planned backoff, capped', () => {
    expect(honourRetryAfter(new ResultStoreThrottled(2_500), 1_000)).toBe(2_500);
    expect(honourRetryAfter(new ResultStoreThrottled(500), 4_000)).toBe(4_000);
    expect(honourRetryAfter(new ResultStoreThrottled(3_600_000), 1_000)).toBe(MAX_RETRY_AFTER_MS);
    expect(honourRetryAfter(new ResultStoreThrottled(), 1_000)).toBe(1_000);
    expect(honourRetryAfter(new Error('down'), 1_000)).toBe(1_000);
  });

  it('withRetries sleeps what the wait policy says, then rethrows the last failure', async () => {
    const sleeps: number[] = [];
    const attempt = () => Promise.reject(new ResultStoreThrottled(2_000));
    await expect(withRetries(attempt, (ms) => Promise.resolve(void sleeps.push(ms)), [1_000, 4_000], honourRetryAfter)).rejects.toBeInstanceOf(ResultStoreThrottled);
    expect(sleeps).toEqual([2_000, 4_000]);
  });

  it.each([
    ['2', 2_000],
    ['0.5', 500],
    ['Thu, 01 Jan 2026 00:00:10 GMT', 10_000],
    ['soon', undefined],
  ])('reads Retry-After %p', (value, ms) => {
    const error = new S3ServiceException({ name: 'SlowDown', $fault: 'server', $metadata: { httpStatusCode: 503 } });
    (error as { $response?: unknown }).$response = { headers: { 'retry-after': value } };
    expect(retryAfterMs(error, Date.parse('2026-01-01T00:00:00Z'))).toBe(ms);
  });
});
