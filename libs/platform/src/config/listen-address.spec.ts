import { parseListenAddress } from './listen-address';

describe(parseListenAddress.name, () => {
  it.each([
    [':4006', { port: 4006 }],
    ['0.0.0.0:80', { host: '0.0.0.0', port: 80 }],
    ['[::1]:9000', { host: '::1', port: 9000 }],
  ])('parses %s', (text, expected) => expect(parseListenAddress(text)).toEqual(expected));

  it.each(['4006', ':0', ':65536', 'host:', 'host:abc'])('rejects %s', (text) => expect(parseListenAddress(text)).toBeUndefined());
});
