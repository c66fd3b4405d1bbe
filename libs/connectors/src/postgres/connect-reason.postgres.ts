import type { ConnectReason } from '@fetcher/engine';
import { sqlState } from './sql-state.postgres';

/**
 * PostgreSQL's SQLSTATEs for a refused login: 28P01 invalid_password, 28000
 * invalid_authorization_specification (an unknown role, a pg_hba.conf rejection), 3D000
 * invalid_catalog_name (no such database).
 */
const BY_SQLSTATE: Readonly<Record<string, ConnectReason>> = Object.freeze({
  '28P01': 'authentication',
  '28000': 'authentication',
  '3D000': 'unknown_database',
});

export function postgresConnectReason(error: object): ConnectReason | undefined {
  const state = sqlState(error);
  return state !== undefined && Object.hasOwn(BY_SQLSTATE, state) ? BY_SQLSTATE[state] : undefined;
}
