import type { ConnectReason } from '@fetcher/engine';

/**
 * MySQL/MariaDB server errors (mysql2's `errno`) and mysql2's own codes for a refused dial:
 * 1045 ER_ACCESS_DENIED_ERROR, 1044 ER_DBACCESS_DENIED_ERROR, 1698 ER_ACCESS_DENIED_NO_PASSWORD_ERROR,
 * 1251 ER_NOT_SUPPORTED_AUTH_MODE, 1862 ER_MUST_CHANGE_PASSWORD_LOGIN, 1049 ER_BAD_DB_ERROR.
 */
const BY_ERRNO: ReadonlyMap<number, ConnectReason> = new Map([
  [1045, 'authentication'],
  [1044, 'authentication'],
  [1698, 'authentication'],
  [1251, 'authentication'],
  [1862, 'authentication'],
  [1049, 'unknown_database'],
]);

/** mysql2's codes for a server that refuses TLS when it was required. */
const BY_CODE: Readonly<Record<string, ConnectReason>> = Object.freeze({
  HANDSHAKE_NO_SSL_SUPPORT: 'tls',
  HANDSHAKE_SSL_ERROR: 'tls',
});

export function mysqlConnectReason(error: object): ConnectReason | undefined {
  const { errno, code, sqlState } = error as { errno?: unknown; code?: unknown; sqlState?: unknown };
  // A server error has a SQLSTATE; a socket error's errno is the OS's (negative in Node), never one of these.
  if (typeof errno === 'number' && typeof sqlState === 'string' && BY_ERRNO.has(errno)) return BY_ERRNO.get(errno);
  return typeof code === 'string' && Object.hasOwn(BY_CODE, code) ? BY_CODE[code] : undefined;
}
