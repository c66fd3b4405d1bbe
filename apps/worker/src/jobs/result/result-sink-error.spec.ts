import { EngineError, ErrorText } from '@fetcher/engine';
import { ResultStoreRefused, ResultStoreThrottled } from '../../ports/result-store.port';
import { failureText } from '../error-text';
import { RESULT_SINK_TEXT, ResultSinkError, resultSinkErrorOf, spoolError, storageError } from './result-sink-error';

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
    [new ResultStoreThrottled(), 'storage_throttled'],
    [new ResultStoreRefused(), 'storage_refused'],
    [new Error('socket hang up'), 'storage_unavailable'],
  ])('a store failure is told apart by its type (%s)', (error, reason) => {
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
