import { EngineError, type ConnectionDescriptor } from '@fetcher/engine';
import { sslModeNotAllowed } from './errors';
import { parseDatasourceType, type DatasourceType } from './naming';

/**
 * What every SQL factory checks in `build()` (no I/O): the type, a host, a port in 1-65535 and an
 * SSL mode from the type's allowlist (case-sensitive; '' and absent mean the driver default).
 * Returns the mode, '' when absent. Texts are fixed: they never echo the values.
 */
export function checkSqlDescriptor(
  descriptor: ConnectionDescriptor,
  type: DatasourceType,
  allowedSslModes: readonly string[],
): string {
  if (parseDatasourceType(descriptor.type) !== type) {
    throw new EngineError('validation', 'datasource type does not match the connector');
  }
  if (typeof descriptor.host !== 'string' || descriptor.host.trim() === '') {
    throw new EngineError('validation', 'datasource host is required');
  }
  const port = descriptor.port;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new EngineError('validation', 'datasource port is invalid');
  }
  const mode = descriptor.sslMode ?? '';
  if (typeof mode !== 'string' || (mode !== '' && !allowedSslModes.includes(mode))) throw sslModeNotAllowed(type);
  return mode;
}
