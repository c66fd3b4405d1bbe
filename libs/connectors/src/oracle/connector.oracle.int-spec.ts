/**
 * The real oracledb thin driver dialling through the connector, against a loopback listener that
 * stands in for the database (no Oracle server exists here): it proves where the driver connects
 * and what it sends first, not that a session opens. The listener closes every connection, so each
 * dial ends as a connect error.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { ConnectionDescriptor } from '@fetcher/engine';
import type { ConnectorOptions } from '../common/options';
import { OracleConnectorFactory } from './connector-factory.oracle';

interface Listener {
  readonly server: Server;
  readonly port: number;
  /** First bytes of every connection, in arrival order. */
  readonly first: Buffer[];
}

async function listener(): Promise<Listener> {
  const first: Buffer[] = [];
  const server = createServer((socket: Socket) => {
    socket.once('data', (chunk: Buffer) => {
      first.push(chunk);
      socket.destroy();
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, first };
}

describe('OracleConnector dialling with the real thin driver', () => {
  let db: Listener;
  const lookup = jest.fn(async () => [{ address: '127.0.0.1', family: 4 as const }]);
  const options: ConnectorOptions = { hostSafety: { allowPrivate: false, allowlist: ['127.0.0.1/32'] }, lookup, timeouts: { connectMs: 5_000 } };
  const signal = new AbortController().signal;
  const descriptor = (sslMode: string): ConnectionDescriptor => ({
    configName: 'hr',
    type: 'ORACLE',
    // A name nothing here can resolve: only the connector's lookup knows it.
    host: 'oracle.fetcher-it.invalid',
    port: db.port,
    databaseName: '',
    userName: 'hr',
    sslMode,
    hostAttributes: { metadata: { serviceName: 'ORCLPDB1' } },
    secrets: { password: 'pw' },
  });

  beforeAll(async () => {
    db = await listener();
  });
  beforeEach(() => {
    db.first.length = 0;
    lookup.mockClear();
  });
  afterAll(async () => {
    await new Promise((resolve) => db?.server.close(resolve));
  });

  const dial = async (sslMode: string) => {
    const sut = new OracleConnectorFactory(options).build(descriptor(sslMode));
    try {
      await expect(sut.testConnection(signal)).rejects.toMatchObject({ category: 'connect', message: 'failed to connect to datasource' });
    } finally {
      await sut.close();
    }
  };

  it('plain TCP: the driver sends its TNS CONNECT packet to the checked address', async () => {
    await dial('');
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(db.first.length).toBeGreaterThanOrEqual(1);
    expect(db.first[0][4]).toBe(1); // TNS packet type 1 = CONNECT
  });

  it('TCPS with chain verification: a TLS handshake reaches the checked address', async () => {
    await dial('true');
    expect(db.first[0][0]).toBe(0x16); // TLS handshake record
  });

  it('verify: the driver goes through the pinning proxy, which dials the checked address', async () => {
    await dial('verify');
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(db.first[0][0]).toBe(0x16);
  });
});
