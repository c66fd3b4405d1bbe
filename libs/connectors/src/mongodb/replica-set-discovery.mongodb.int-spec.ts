/**
 * Replica-set discovery must not dial past the host guard. A server that answers `hello` as a
 * replica-set member listing other hosts (here a loopback address the policy denies, standing in
 * for 169.254.169.254 or an internal service) would make a discovering driver connect to them
 * without the guard ever seeing the address: IP literals never reach the socket's lookup hook.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { startMongoTestServer, type MongoTestServer } from '@fetcher/mongo-test-server';
import type { ConnectionDescriptor } from '@fetcher/engine';
import type { ConnectorOptions } from '../common/options';
import type { MongoConnector } from './connector.mongodb';
import { MongoConnectorFactory } from './connector-factory.mongodb';

const DECOY_HOST = '127.0.0.2';

let decoy: Server;
let decoyPort = 0;
let accepted = 0;
const decoySockets = new Set<Socket>();
let seed: MongoTestServer;
const connectors: MongoConnector[] = [];

beforeAll(async () => {
  decoy = createServer((socket) => {
    accepted++;
    decoySockets.add(socket);
    socket.on('close', () => decoySockets.delete(socket));
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    decoy.once('error', reject);
    decoy.listen(0, DECOY_HOST, () => resolve());
  });
  decoyPort = (decoy.address() as { port: number }).port;
  const member = `${DECOY_HOST}:${decoyPort}`;
  seed = await startMongoTestServer({ hello: { setName: 'rs0', hosts: [member], me: member, primary: member } });
});

afterAll(async () => {
  await Promise.all(connectors.map((c) => c.close()));
  await seed?.close();
  for (const socket of decoySockets) socket.destroy();
  await new Promise<void>((resolve) => (decoy ? decoy.close(() => resolve()) : resolve()));
});

function descriptor(metadata: Record<string, string> = {}): ConnectionDescriptor {
  return {
    configName: 'crm',
    type: 'MONGODB',
    host: '127.0.0.1',
    port: seed.port,
    databaseName: 'crm',
    userName: '',
    sslMode: '',
    hostAttributes: { metadata },
  };
}

// Only the seed is allowed; every other loopback address is denied.
const options: ConnectorOptions = { hostSafety: { allowPrivate: false, allowlist: ['127.0.0.1/32'] } };

describe('MongoConnector and replica-set discovery', () => {
  it.each([
    ['by default', {}],
    ['when the metadata asks for directConnection=false', { directConnection: 'false' }],
  ])('never dials a member host the seed announces (%s)', async (_label, metadata) => {
    const sut = new MongoConnectorFactory(options).build(descriptor(metadata)) as MongoConnector;
    connectors.push(sut);
    await sut.testConnection(new AbortController().signal);
    await sut.close();
    expect(accepted).toBe(0);
  });
});
