import type { ConnectReason } from '@fetcher/engine';

/**
 * node-oracledb's codes: `ORA-*` from the server or listener, `NJS-*` from the thin driver itself.
 * ORA-01017 invalid username/password, ORA-28000 account locked, ORA-28001 password expired,
 * ORA-01005 null password; ORA-12514 / ORA-12505 / NJS-518 / NJS-519 an unknown service or SID;
 * ORA-12541 / NJS-511 no listener; ORA-12170 / NJS-510 timed out; ORA-12545 / NJS-503 with a DNS
 * cause host not found (classified through the cause); NJS-505 to NJS-508 TLS.
 */
const BY_CODE: Readonly<Record<string, ConnectReason>> = Object.freeze({
  'ORA-01017': 'authentication',
  'ORA-28000': 'authentication',
  'ORA-28001': 'authentication',
  'ORA-01005': 'authentication',
  'ORA-12514': 'unknown_database',
  'ORA-12505': 'unknown_database',
  'NJS-518': 'unknown_database',
  'NJS-519': 'unknown_database',
  'ORA-12541': 'refused',
  'NJS-511': 'refused',
  'ORA-12170': 'timeout',
  'NJS-510': 'timeout',
  'ORA-12545': 'host_not_found',
  'NJS-505': 'tls',
  'NJS-506': 'tls',
  'NJS-507': 'tls',
  'NJS-508': 'tls',
});

export function oracleConnectReason(error: object): ConnectReason | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && Object.hasOwn(BY_CODE, code) ? BY_CODE[code] : undefined;
}
