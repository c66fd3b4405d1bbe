import { createServer } from 'node:net';
import { listenNamingVariable, parseListenAddress } from './listen-address';

describe(parseListenAddress.name, () => {
  it.each([
    [':4006', { port: 4006 }],
    ['0.0.0.0:80', { host: '0.0.0.0', port: 80 }],
    ['[::1]:9000', { host: '::1', port: 9000 }],
    ['41908', { port: 41908 }],
  ])('parses %s', (text, expected) => expect(parseListenAddress(text)).toEqual(expected));

  it.each(['', '0', '65536', 'host', ':0', ':65536', 'host:', 'host:abc'])('rejects %s', (text) => expect(parseListenAddress(text)).toBeUndefined());
});

describe(listenNamingVariable.name, () => {
  it('names the variable and the address when the port is in use', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    const second = createServer();
    try {
      const listening = listenNamingVariable('SERVER_ADDRESS', { host: '127.0.0.1', port }, () =>
        new Promise<void>((resolve, reject) => {
          second.once('error', reject);
          second.listen(port, '127.0.0.1', resolve);
        }),
      );
      await expect(listening).rejects.toThrow(`SERVER_ADDRESS: 127.0.0.1:${port} is already in use by another process: stop it or choose another port (EADDRINUSE)`);
    } finally {
      second.close();
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('passes any other failure unchanged, and the result of a successful listen', async () => {
    const other = new Error('other');
    await expect(listenNamingVariable('X', { port: 1 }, () => Promise.reject(other))).rejects.toBe(other);
    await expect(listenNamingVariable('X', { port: 1 }, () => Promise.resolve(7))).resolves.toBe(7);
  });
});
