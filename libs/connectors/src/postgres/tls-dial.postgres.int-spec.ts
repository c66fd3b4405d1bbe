import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorText, type ConnectionDescriptor } from '@fetcher/engine';
import type { LookupFn } from '../common/host-safety';
import { PostgresConnectorFactory } from './connector-factory.postgres';
import { TlsPostgresStub } from './testing/tls-postgres-stub';

const HOSTNAME = 'db.fetcher.test';

/** A throwaway CA, a server certificate for HOSTNAME and a client certificate, made with the openssl CLI. */
function makeCertificates(dir: string): { ca: string; serverKey: string; serverCert: string; clientKey: string; clientCert: string } {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=fetcher-test-ca');
  writeFileSync(join(dir, 'server.ext'), `subjectAltName=DNS:${HOSTNAME}\n`);
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', `/CN=${HOSTNAME}`);
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '2', '-extfile', 'server.ext');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/CN=fetcher-client');
  openssl('x509', '-req', '-in', 'client.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'client.crt', '-days', '2');
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');
  return { ca: read('ca.crt'), serverKey: read('server.key'), serverCert: read('server.crt'), clientKey: read('client.key'), clientCert: read('client.crt') };
}

describe('PostgreSQL TLS dialling against a TLS endpoint on loopback', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fetcher-pg-tls-'));
  const certs = makeCertificates(dir);
  const stub = new TlsPostgresStub({ key: certs.serverKey, cert: certs.serverCert, ca: certs.ca });
  let port = 0;
  // Every name resolves to the checked loopback address: the driver must dial that address and
  // still present and verify the configured name.
  const lookup: LookupFn = () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
  const factory = new PostgresConnectorFactory({ hostSafety: { allowPrivate: false, allowlist: ['127.0.0.1/32'] }, lookup });
  const signal = new AbortController().signal;

  beforeAll(async () => {
    port = await stub.listen();
  });

  afterAll(async () => {
    await stub.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const descriptor = (sslMode: string, host = HOSTNAME, withCa = true): ConnectionDescriptor => ({
    configName: 'secure',
    type: 'POSTGRESQL',
    host,
    port,
    databaseName: 'test',
    userName: 'postgres',
    sslMode,
    secrets: { ssl: { ...(withCa ? { ca: certs.ca } : {}), cert: certs.clientCert, key: certs.clientKey } },
  });

  async function connect(d: ConnectionDescriptor): Promise<unknown> {
    const connector = factory.build(d);
    try {
      await connector.testConnection(signal);
      return 'connected';
    } catch (error) {
      return error;
    } finally {
      await connector.close();
    }
  }

  it('verify-full: dials the pinned address, sends the hostname as SNI and the client certificate, verifies the chain', async () => {
    stub.handshakes.length = 0;
    expect(await connect(descriptor('verify-full'))).toBe('connected');
    expect(stub.handshakes[0]).toEqual({ servername: HOSTNAME, clientCertificateCn: 'fetcher-client' });
  });

  it('verify-full refuses a certificate for another name', async () => {
    expect(await connect(descriptor('verify-full', 'other.fetcher.test'))).toMatchObject({ category: 'connect', message: ErrorText.connectFailed });
  });

  it('verify-ca accepts the chain whatever the name', async () => {
    expect(await connect(descriptor('verify-ca', 'other.fetcher.test'))).toBe('connected');
  });

  it('verify-full and verify-ca refuse a server their CA did not sign', async () => {
    expect(await connect(descriptor('verify-full', HOSTNAME, false))).toMatchObject({ category: 'connect' });
    expect(await connect(descriptor('verify-ca', HOSTNAME, false))).toMatchObject({ category: 'connect' });
  });

  it('require without a CA encrypts without verifying; prefer takes TLS when offered', async () => {
    stub.handshakes.length = 0;
    expect(await connect(descriptor('require', HOSTNAME, false))).toBe('connected');
    expect(await connect(descriptor('prefer', HOSTNAME, false))).toBe('connected');
    expect(stub.handshakes.map((h) => h.clientCertificateCn)).toEqual(['fetcher-client', 'fetcher-client']);
  });
});
