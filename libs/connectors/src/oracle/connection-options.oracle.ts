/**
 * oracledb (thin mode) pool attributes for one datasource. Pure: the connector resolves the dial target first and passes it in.
 */
import type { ConnectionDescriptor, ConnectionSecrets, ConnectionSslSecrets } from '@fetcher/engine';
import type { PoolAttributes } from 'oracledb';
import type { ConnectorAttributes } from '../common/attributes';
import type { DialTarget } from '../common/host-safety';
import type { ConnectorTimeouts } from '../common/timeouts';

export const ORACLE_SSL_MODES: readonly string[] = Object.freeze(['disable', 'false', 'true', 'enable', 'verify', 'skip-verify']);

/** Why a dial cannot even start; the connector reports it as connectError(cause), never as text. */
export class OracleDialError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OracleDialError';
  }
}

export interface OracleTls {
  readonly dnMatch: boolean;
}

/**
 * `""`/`disable`/`false`: TCP. `true`/`enable`: TCPS, chain verified. `verify`: TCPS plus the
 * server DN / host match. `skip-verify` cannot be honoured: thin mode always verifies the chain
 * (it hard-codes rejectUnauthorized), so the dial fails, naming the mode, instead of silently verifying.
 */
export function oracleTls(mode: string): OracleTls | undefined {
  switch (mode) {
    case 'true':
    case 'enable':
      return { dnMatch: false };
    case 'verify':
      return { dnMatch: true };
    case 'skip-verify':
      throw new OracleDialError('ssl mode skip-verify is not supported by the oracledb thin driver');
    default:
      return undefined;
  }
}

/** Oracle service names: letters, digits and `_ . $ # -`; anything else could break the descriptor. */
const SERVICE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.$#-]*$/;

export function oracleServiceName(attributes: ConnectorAttributes): string {
  const serviceName = attributes.metadata?.serviceName;
  if (typeof serviceName !== 'string' || serviceName.trim() === '') {
    throw new OracleDialError('metadata.serviceName is required for Oracle');
  }
  if (!SERVICE_NAME.test(serviceName)) throw new OracleDialError('metadata.serviceName is not a valid Oracle service name');
  return serviceName;
}

/**
 * thin mode builds its TLS context as {cert: wallet, key: wallet, ca: wallet}: the PEM must hold
 * the client certificate first, then its key, then the CA. A CA alone cannot be used (Node
 * rejects a context without a key), so that combination fails the dial with a clear cause
 * instead of a TLS initialisation error; without any PEM the system trust store applies.
 */
export function oracleWalletContent(material: ConnectionSslSecrets | undefined): string | undefined {
  const { ca, cert, key } = material ?? {};
  if (!ca && !cert && !key) return undefined;
  if (!cert || !key) {
    throw new OracleDialError('the oracledb thin driver needs the client certificate and key together with a CA');
  }
  return [cert, key, ca].filter((part): part is string => Boolean(part)).map((part) => part.trim()).join('\n') + '\n';
}

export interface OracleProxyHop {
  readonly host: string;
  readonly port: number;
}

export interface OracleConnectInput {
  /** What the descriptor's HOST says: the checked address, or the original name behind a pinning proxy. */
  readonly host: string;
  readonly family: 4 | 6;
  readonly port: number;
  readonly serviceName: string;
  readonly tls: OracleTls | undefined;
  readonly timeouts: ConnectorTimeouts;
  readonly proxy?: OracleProxyHop;
}

/**
 * TCP: Easy Connect `host:port/service`. TCPS (or any proxy hop): a full descriptor with
 * PROTOCOL=TCPS and the DN-match switch.
 */
export function oracleConnectString(input: OracleConnectInput): string {
  const { host, family, port, serviceName, tls, timeouts, proxy } = input;
  if (!tls && !proxy) return `${family === 6 ? `[${host}]` : host}:${port}/${serviceName}`;
  const seconds = Math.max(1, Math.ceil(timeouts.connectMs / 1000));
  const address =
    `(ADDRESS=(PROTOCOL=${tls ? 'TCPS' : 'TCP'})(HOST=${host})(PORT=${port})` +
    (proxy ? `(HTTPS_PROXY=${proxy.host})(HTTPS_PROXY_PORT=${proxy.port})` : '') +
    ')';
  const security = tls ? `(SECURITY=(SSL_SERVER_DN_MATCH=${tls.dnMatch ? 'yes' : 'no'}))` : '';
  return (
    `(DESCRIPTION=(CONNECT_TIMEOUT=${seconds})(TRANSPORT_CONNECT_TIMEOUT=${seconds})(RETRY_COUNT=0)` +
    `${address}(CONNECT_DATA=(SERVICE_NAME=${serviceName}))${security})`
  );
}

export interface OraclePoolInput {
  readonly descriptor: ConnectionDescriptor;
  readonly attributes: ConnectorAttributes;
  readonly secrets: ConnectionSecrets;
  readonly target: DialTarget;
  readonly sslMode: string;
  readonly timeouts: ConnectorTimeouts;
  /** A pinning proxy already listening (verify mode with a hostname, see pinning-proxy.oracle.ts). */
  readonly proxy?: OracleProxyHop;
}

/**
 * Pinning: the descriptor's HOST is the checked address. In `verify` mode with a hostname the
 * DN / host match must see the original name, which thin mode takes from HOST itself; then HOST
 * carries the name and the connection goes through the connector's own pinning proxy, which
 * dials the checked address, so the driver never resolves the name.
 */
export function oraclePoolAttributes(input: OraclePoolInput): PoolAttributes {
  const { descriptor, attributes, secrets, target, sslMode, timeouts, proxy } = input;
  const tls = oracleTls(sslMode);
  const serviceName = oracleServiceName(attributes);
  const walletContent = tls ? oracleWalletContent(secrets.ssl) : undefined;
  const host = proxy ? target.servername : target.address;
  const seconds = Math.max(1, Math.ceil(timeouts.connectMs / 1000));
  return {
    user: descriptor.userName,
    ...(secrets.password !== undefined ? { password: secrets.password } : {}),
    connectString: oracleConnectString({ host, family: target.family, port: descriptor.port, serviceName, tls, timeouts, proxy }),
    ...(tls ? { sslServerDNMatch: tls.dnMatch } : {}),
    ...(walletContent ? { walletContent } : {}),
    poolMin: 0,
    poolMax: 2,
    poolIncrement: 1,
    queueTimeout: timeouts.connectMs,
    connectTimeout: seconds,
    transportConnectTimeout: seconds,
  };
}

/** Whether this dial needs the pinning proxy: DN / host matching against a hostname. */
export function needsPinningProxy(sslMode: string, target: DialTarget): boolean {
  return sslMode === 'verify' && target.servername !== '';
}
