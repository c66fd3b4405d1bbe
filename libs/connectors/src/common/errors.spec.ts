import { EngineError, ErrorText } from '@fetcher/engine';
import { HostNotAllowedError, SslModeNotAllowedError, connectError, hostNotAllowed, sslModeNotAllowed } from './errors';

describe('connector errors', () => {
  it('makes connect errors with the fixed text and a hidden cause', () => {
    const cause = new Error('password authentication failed for user "bob" at postgres://bob:pw@db:5432/x');
    const error = connectError(cause);
    expect(error).toBeInstanceOf(EngineError);
    expect(error).toMatchObject({ category: 'connect', message: ErrorText.connectFailed });
    expect(error.cause).toBe(cause);
    expect(`${error.toString()} ${JSON.stringify(error)}`).not.toMatch(/bob|pw|postgres:|password/);
  });

  it('makes the host denial a validation error with a typed cause and no host in it', () => {
    const error = hostNotAllowed();
    expect(error).toMatchObject({ category: 'validation', message: 'datasource host is not allowed' });
    expect(error.cause).toBeInstanceOf(HostNotAllowedError);
  });

  it('makes the ssl mode refusal a validation error whose typed cause carries the type', () => {
    const error = sslModeNotAllowed('POSTGRESQL');
    expect(error).toMatchObject({ category: 'validation', message: 'ssl mode is not supported for this datasource type' });
    expect(error.cause).toBeInstanceOf(SslModeNotAllowedError);
    expect((error.cause as SslModeNotAllowedError).datasourceType).toBe('POSTGRESQL');
    expect(error.toString()).not.toContain('POSTGRESQL');
  });
});
