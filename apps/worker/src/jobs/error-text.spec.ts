import { EngineError } from '@fetcher/engine';
import { WorkerCodes, WorkerError } from '../errors/worker-error';
import { failureText, sanitiseErrorText } from './error-text';

describe(sanitiseErrorText.name, () => {
  it('removes URLs, dial targets, addresses and every known secret', () => {
    const text = 'postgres://u:p@db:5432/x failed; dial tcp db.internal:5432 refused; Addr: 10.1.2.3 ; at 192.168.0.1:99 with hunter2-pass';
    expect(sanitiseErrorText(text, ['hunter2-pass'])).toBe('[redacted] failed; dial tcp [redacted] refused; Addr: [redacted] ; at [redacted] with [REDACTED]');
  });
});

describe(failureText.name, () => {
  it('renders engine errors with the fixed prefix and never quotes anything else', () => {
    expect(failureText(new EngineError('timeout', 'execution exceeded its deadline', new Error('postgres://secret@x')))).toBe(
      'engine extraction: engine: [timeout] execution exceeded its deadline',
    );
    expect(failureText(new WorkerError(WorkerCodes.jobNotFound))).toBe('FET-0067: job not found');
    expect(failureText(new Error('driver said postgres://u:p@h'))).toBe('process failed: internal error');
  });
});
