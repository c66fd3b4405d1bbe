/**
 * SQL Server login routing must not dial past the host guard. There is no SQL Server here, so a
 * minimal TDS endpoint plays one that answers the login with a routing reply pointing at a host
 * the policy denies (a loopback address standing in for 169.254.169.254 or an internal service).
 * The real mssql/tedious stack runs against it; a decoy listener on the denied address counts
 * every socket that reaches it, which is where tedious would send the login packet and password.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { EngineError, type ConnectionDescriptor } from '@fetcher/engine';
import type { ConnectorOptions } from '../common/options';
import { SqlServerConnectorFactory } from './connector-factory.sqlserver';

const DECOY_HOST = '127.0.0.2';
const PACKET = { tabularResult: 0x04, login7: 0x10, prelogin: 0x12 } as const;

let decoy: Server;
let routing: Server;
let decoyPort = 0;
let accepted = 0;
let logins = 0;
const sockets = new Set<Socket>();

function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve((server.address() as { port: number }).port));
  });
}

function track(socket: Socket): void {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
  socket.on('error', () => undefined);
}

/** One TDS packet: type, status EOM, big-endian length, spid 0, packet id 1, window 0. */
function packet(type: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt8(type, 0);
  header.writeUInt8(0x01, 1);
  header.writeUInt16BE(8 + payload.length, 2);
  header.writeUInt8(1, 6);
  return Buffer.concat([header, payload]);
}

/** PRELOGIN answer: server version 16.0 and encryption NOT_SUP (no TLS, so the login is readable). */
function preloginReply(): Buffer {
  const options = Buffer.from([0x00, 0x00, 0x0b, 0x00, 0x06, 0x01, 0x00, 0x11, 0x00, 0x01, 0xff]);
  const data = Buffer.from([16, 0, 0, 0, 0, 0, 0x02]);
  return packet(PACKET.tabularResult, Buffer.concat([options, data]));
}

/** LOGIN7 answer: ENVCHANGE routing to DECOY_HOST, LOGINACK, DONE. */
function routingReply(): Buffer {
  const server = Buffer.from(DECOY_HOST, 'ucs2');
  const route = Buffer.alloc(5);
  route.writeUInt8(0, 0);
  route.writeUInt16LE(decoyPort, 1);
  route.writeUInt16LE(DECOY_HOST.length, 3);
  const routeValue = Buffer.concat([route, server]);
  const envBody = Buffer.concat([Buffer.from([20]), u16(routeValue.length), routeValue, u16(0)]);
  const envChange = Buffer.concat([Buffer.from([0xe3]), u16(envBody.length), envBody]);
  const progName = Buffer.from('fake', 'ucs2');
  const ackBody = Buffer.concat([Buffer.from([1, 0x74, 0x00, 0x00, 0x04, 4]), progName, Buffer.from([16, 0, 0, 0])]);
  const loginAck = Buffer.concat([Buffer.from([0xad]), u16(ackBody.length), ackBody]);
  const done = Buffer.concat([Buffer.from([0xfd]), Buffer.alloc(12)]);
  return packet(PACKET.tabularResult, Buffer.concat([envChange, loginAck, done]));
}

function u16(value: number): Buffer {
  const buffer = Buffer.alloc(2);
  buffer.writeUInt16LE(value, 0);
  return buffer;
}

/** Answers PRELOGIN and LOGIN7 packets; anything else is ignored. */
function tdsEndpoint(socket: Socket): void {
  track(socket);
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 8 && pending.length >= pending.readUInt16BE(2)) {
      const type = pending.readUInt8(0);
      pending = pending.subarray(pending.readUInt16BE(2));
      if (type === PACKET.prelogin) socket.write(preloginReply());
      if (type === PACKET.login7) {
        logins++;
        socket.write(routingReply());
      }
    }
  });
}

beforeAll(async () => {
  decoy = createServer((socket) => {
    accepted++;
    track(socket);
    socket.destroy();
  });
  decoyPort = await listen(decoy, DECOY_HOST);
  routing = createServer(tdsEndpoint);
  await listen(routing, '127.0.0.1');
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all([decoy, routing].map((server) => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))));
});

// Only the configured server is allowed; every other loopback address is denied.
const options: ConnectorOptions = { hostSafety: { allowPrivate: false, allowlist: ['127.0.0.1/32'] } };

describe('SqlServerConnector and login routing (a minimal TDS endpoint: no SQL Server here)', () => {
  it('never connects to a routed host the guard denies, and fails the dial as a connect error', async () => {
    const descriptor: ConnectionDescriptor = {
      configName: 'erp',
      type: 'SQL_SERVER',
      host: '127.0.0.1',
      port: (routing.address() as { port: number }).port,
      databaseName: 'Erp',
      userName: 'reader',
      sslMode: 'disable',
      secrets: { password: 'routed-password' },
    };
    const sut = new SqlServerConnectorFactory(options).build(descriptor);
    try {
      const error = await sut.testConnection(new AbortController().signal).catch((e: unknown) => e);
      expect(logins).toBe(1);
      expect(error).toBeInstanceOf(EngineError);
      expect(error).toMatchObject({ category: 'connect' });
      expect(accepted).toBe(0);
    } finally {
      await sut.close();
    }
  });
});
