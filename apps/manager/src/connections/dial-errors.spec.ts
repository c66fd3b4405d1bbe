import { EngineError, ErrorText } from '@fetcher/engine';
import { connectFailure, dialFailureLog } from './dial-errors';

describe(dialFailureLog.name, () => {
  const driver = Object.assign(new Error('password authentication failed for user "reader" (pw s3cret-pw) at postgres://reader:s3cret-pw@db:5432/app'), {
    code: '28P01',
  });
  const wrapped = new EngineError('connect', ErrorText.connectFailed, new EngineError('connect', ErrorText.connectFailed, driver, { reason: 'authentication' }), {
    reason: 'authentication',
  });

  it('gives the reason and each cause with its code, the password and DSN credentials masked', () => {
    const line = dialFailureLog(wrapped, ['s3cret-pw']);
    expect(line).toMatchObject({ reason: 'authentication', causes: [{ type: 'EngineError', category: 'connect' }, { type: 'EngineError' }, { type: 'Error', code: '28P01' }] });
    const text = JSON.stringify(line);
    expect(text).toContain('password authentication failed');
    expect(text).not.toContain('s3cret-pw');
  });

  it('answers Database Connection Error with the reason, and without one when none is known', () => {
    expect(connectFailure(wrapped)).toMatchObject({ title: 'Database Connection Error', reason: 'authentication' });
    expect(connectFailure(new Error('x')).reason).toBeUndefined();
  });
});
