import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { PinningProxy } from './pinning-proxy.oracle';

/** A TCP echo listener on loopback, standing in for the database behind the checked address. */
async function echoServer(): Promise<{ server: Server; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, sockets };
}

/** Sends `CONNECT <authority>`, then `payload`; resolves with everything read until the proxy or peer closes. */
async function tunnel(proxy: PinningProxy, authority: string, payload: string): Promise<string> {
  const socket = connect({ host: proxy.host, port: proxy.port });
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    received += chunk;
    if (received.includes('\r\n\r\n') && received.startsWith('HTTP/1.1 200') && received.endsWith(payload)) socket.end();
  });
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n${payload}`);
  await new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return received;
}

describe('PinningProxy on loopback', () => {
  let echo: Awaited<ReturnType<typeof echoServer>>;
  let proxy: PinningProxy;

  beforeAll(async () => {
    echo = await echoServer();
    proxy = await PinningProxy.start({ hostname: 'Ora.Example.Test', port: echo.port, address: '127.0.0.1', family: 4 });
  });

  afterAll(async () => {
    await proxy?.close();
    for (const socket of echo?.sockets ?? []) socket.destroy();
    await new Promise((resolve) => echo?.server.close(resolve));
  });

  it('relays a CONNECT for the pinned name and port to the checked address', async () => {
    const received = await tunnel(proxy, `ora.example.test:${echo.port}`, 'tns-bytes');
    expect(received).toBe('HTTP/1.1 200 Connection Established\r\n\r\ntns-bytes');
  });

  it('accepts the name case-insensitively and with a trailing dot', async () => {
    expect(await tunnel(proxy, `ORA.EXAMPLE.TEST.:${echo.port}`, 'x')).toBe('HTTP/1.1 200 Connection Established\r\n\r\nx');
  });

  it.each([
    ['another host', () => `evil.example.test:${echo.port}`],
    ['another port', () => `ora.example.test:${echo.port + 1}`],
    ['the address itself', () => `127.0.0.1:${echo.port}`],
  ])('refuses %s', async (_label, authority) => {
    expect(await tunnel(proxy, authority(), 'x')).toBe('HTTP/1.1 403 Forbidden\r\n\r\n');
  });

  it('stops listening and cuts relayed connections on close, idempotently', async () => {
    const own = await PinningProxy.start({ hostname: 'a.test', port: echo.port, address: '127.0.0.1', family: 4 });
    const socket = connect({ host: own.host, port: own.port });
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(`CONNECT a.test:${echo.port} HTTP/1.1\r\n\r\n`);
    await new Promise<void>((resolve) => socket.once('data', () => resolve()));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await own.close();
    await own.close();
    await closed;
    const refused = connect({ host: '127.0.0.1', port: own.port });
    await expect(new Promise((_resolve, reject) => refused.once('error', reject))).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
