import type { ConnectReason } from '@fetcher/engine';

/**
 * tedious's connection error codes (mssql copies them onto its own ConnectionError). SQL Server
 * answers a login to a database that does not exist with a login failure as well, so ELOGIN is
 * `authentication` in both cases; the socket error ESOCKET wraps is classified through its cause.
 */
const BY_CODE: Readonly<Record<string, ConnectReason>> = Object.freeze({
  ELOGIN: 'authentication',
  ETIMEOUT: 'timeout',
  EINSTLOOKUP: 'host_not_found',
  EENCRYPT: 'tls',
});

export function sqlServerConnectReason(error: object): ConnectReason | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && Object.hasOwn(BY_CODE, code) ? BY_CODE[code] : undefined;
}
