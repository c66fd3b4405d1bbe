import { EngineError, type ConnectionDescriptor } from '@fetcher/engine';
import { SslModeNotAllowedError } from './errors';
import { checkSqlDescriptor } from './descriptor-checks';

const base: ConnectionDescriptor = { configName: 'c', type: 'mysql', host: 'db.example.com', port: 3306, databaseName: 'd', userName: 'u' };
const MODES = ['false', 'true'];

describe('checkSqlDescriptor', () => {
  it('returns the mode, "" when absent', () => {
    expect(checkSqlDescriptor(base, 'MYSQL', MODES)).toBe('');
    expect(checkSqlDescriptor({ ...base, sslMode: '' }, 'MYSQL', MODES)).toBe('');
    expect(checkSqlDescriptor({ ...base, sslMode: 'true' }, 'MYSQL', MODES)).toBe('true');
  });

  it.each([
    ['another type', { type: 'POSTGRESQL' }, 'datasource type does not match the connector'],
    ['a blank host', { host: '  ' }, 'datasource host is required'],
    ['port 0', { port: 0 }, 'datasource port is invalid'],
    ['port 65536', { port: 65_536 }, 'datasource port is invalid'],
    ['a fractional port', { port: 33.5 }, 'datasource port is invalid'],
  ])('refuses %s', (_label, patch, message) => {
    const attempt = () => checkSqlDescriptor({ ...base, ...patch }, 'MYSQL', MODES);
    expect(attempt).toThrow(EngineError);
    expect(attempt).toThrow(expect.objectContaining({ category: 'validation', message }));
  });

  it('refuses a mode outside the allowlist, case-sensitively, with the typed cause', () => {
    for (const sslMode of ['TRUE', 'require', ' true']) {
      let error: unknown;
      try {
        checkSqlDescriptor({ ...base, sslMode }, 'MYSQL', MODES);
      } catch (caught) {
        error = caught;
      }
      expect(error).toMatchObject({ category: 'validation', message: 'ssl mode is not supported for this datasource type' });
      expect((error as EngineError).cause).toBeInstanceOf(SslModeNotAllowedError);
    }
  });
});
