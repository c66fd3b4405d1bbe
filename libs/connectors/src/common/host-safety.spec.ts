import { EngineError, ErrorText } from '@fetcher/engine';
import { HostNotAllowedError } from './errors';
import {
  checkHostLiteral,
  classifyAddress,
  DEFAULT_HOST_SAFETY_POLICY,
  invalidAllowlistEntries,
  resolveDialTarget,
  type HostSafetyPolicy,
  type LookupFn,
} from './host-safety';

const ST: HostSafetyPolicy = { allowPrivate: true, allowlist: [] };
const MT: HostSafetyPolicy = { allowPrivate: false, allowlist: [] };

function denied(fn: () => void): EngineError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(EngineError);
    const engineError = error as EngineError;
    expect(engineError.category).toBe('validation');
    expect(engineError.message).toBe('datasource host is not allowed');
    expect(engineError.cause).toBeInstanceOf(HostNotAllowedError);
    return engineError;
  }
  throw new Error('expected the host to be denied');
}

const lookupReturning =
  (...addresses: string[]): LookupFn =>
  () =>
    Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }) as const));

describe('host safety: address classes', () => {
  // Every address class of the guard, with an address at the edge of each range.
  const alwaysDenied: readonly (readonly [string, string])[] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['169.254.0.1', 'link-local'],
    ['169.254.255.255', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['0.255.255.255', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['255.255.255.255', 'multicast'],
    ['ff02::1', 'multicast'],
    ['192.0.2.10', 'documentation'],
    ['198.51.100.10', 'documentation'],
    ['203.0.113.10', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['2001:db8:ffff:ffff::1', 'documentation'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.255', 'reserved'],
    ['100::1', 'reserved'],
  ];
  const privateAddresses: readonly string[] = [
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '100.127.255.255',
    'fc00::1',
    'fdff:ffff::1',
  ];
  const publicAddresses: readonly string[] = [
    '8.8.8.8',
    '1.1.1.1',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '169.253.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2606:4700::1111',
    '2001:db9::1',
    '100:0:0:1::1',
    'fec0::1',
  ];

  it.each(alwaysDenied)('classifies %s as %s and denies it in ST and MT', (address, cls) => {
    expect(classifyAddress(address)).toBe(cls);
    denied(() => checkHostLiteral(address, ST));
    denied(() => checkHostLiteral(address, MT));
  });

  it.each(privateAddresses)('classifies %s as private: allowed in ST, denied in MT', (address) => {
    expect(classifyAddress(address)).toBe('private');
    expect(() => checkHostLiteral(address, ST)).not.toThrow();
    denied(() => checkHostLiteral(address, MT));
  });

  it.each(publicAddresses)('classifies %s as public: allowed in ST and MT', (address) => {
    expect(classifyAddress(address)).toBe('public');
    expect(() => checkHostLiteral(address, ST)).not.toThrow();
    expect(() => checkHostLiteral(address, MT)).not.toThrow();
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::FFFF:169.254.169.254', 'metadata'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:8.8.8.8', 'public'],
  ])('unmaps the IPv4-mapped address %s before classifying it (%s)', (address, cls) => {
    expect(classifyAddress(address)).toBe(cls);
  });

  it('denies IPv4-mapped loopback and allows IPv4-mapped private only in ST', () => {
    denied(() => checkHostLiteral('::ffff:127.0.0.1', ST));
    expect(() => checkHostLiteral('::ffff:10.1.2.3', ST)).not.toThrow();
    denied(() => checkHostLiteral('::ffff:10.1.2.3', MT));
  });

  it.each([
    ['::127.0.0.1', 'loopback'],
    ['::169.254.169.254', 'metadata'],
    ['::10.1.2.3', 'private'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b:1::10.0.0.1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['2002:c0a8:0101::', 'private'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'], // Teredo, client 127.0.0.1 (stored inverted)
    ['64:ff9b::8.8.8.8', 'public'],
    ['2002:0808:0808::1', 'public'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
  ])('classes the IPv6 form %s by the IPv4 address it embeds (%s)', (address, cls) => {
    expect(classifyAddress(address)).toBe(cls);
  });

  it('denies IPv4-compatible, NAT64, 6to4 and Teredo forms of a denied IPv4 address', () => {
    for (const host of ['::127.0.0.1', '[64:ff9b::127.0.0.1]', '2002:7f00:1::', '64:ff9b::a9fe:a9fe']) denied(() => checkHostLiteral(host, ST));
    denied(() => checkHostLiteral('2002:0a00:0001::', MT));
    expect(() => checkHostLiteral('2002:0a00:0001::', ST)).not.toThrow();
  });

  it('accepts a bracketed IPv6 literal and classifies it', () => {
    denied(() => checkHostLiteral('[::1]', ST));
    expect(() => checkHostLiteral('[2606:4700::1111]', MT)).not.toThrow();
  });
});

describe('host safety: names', () => {
  it.each(['localhost', 'LOCALHOST', 'localhost.', 'db.localhost', 'a.b.LocalHost.'])('denies the loopback name %s in ST and MT', (name) => {
    denied(() => checkHostLiteral(name, ST));
    denied(() => checkHostLiteral(name, MT));
  });

  it.each(['metadata.google.internal', 'Metadata.GCP.internal.', 'metadata.azure.internal'])('denies the metadata name %s in ST and MT', (name) => {
    denied(() => checkHostLiteral(name, ST));
    denied(() => checkHostLiteral(name, MT));
  });

  it.each(['printer.local', 'db.internal', 'pg.default.svc.cluster.local', 'DB.Internal.'])('treats %s as private', (name) => {
    expect(() => checkHostLiteral(name, ST)).not.toThrow();
    denied(() => checkHostLiteral(name, MT));
  });

  it.each(['db.example.com', 'EXAMPLE.ORG.', 'my_host.example.net', 'localhost.example.com', 'internal.example.com'])(
    'allows the public name %s in ST and MT without resolving it',
    (name) => {
      expect(() => checkHostLiteral(name, ST)).not.toThrow();
      expect(() => checkHostLiteral(name, MT)).not.toThrow();
    },
  );

  it.each([
    '',
    ' ',
    '127.1',
    '0x7f.0.0.1',
    '2130706433',
    '017.0.0.1',
    '256.1.1.1',
    '1.2.3.4.5',
    'db.123',
    '::ffff:999.0.0.1',
    '1::2::3',
    'gggg::1',
    'host name.com',
    'host/path',
    'user@host',
    '-bad.example.com',
    'a..b',
    `${'a'.repeat(254)}`,
  ])('fails closed on the unparseable host %j', (host) => {
    denied(() => checkHostLiteral(host, ST));
    denied(() => checkHostLiteral(host, { allowPrivate: true, allowlist: ['0.0.0.0/0', '::/0'] }));
  });

  it('never echoes the host in the error', () => {
    const error = denied(() => checkHostLiteral('169.254.169.254', MT));
    expect(`${error.message} ${error.toString()} ${JSON.stringify(error)}`).not.toContain('169.254');
  });
});

describe('host safety: allowlist', () => {
  const policy = (allowlist: string[], allowPrivate = false): HostSafetyPolicy => ({ allowPrivate, allowlist });

  it('lets a listed CIDR override loopback, v4 and v6', () => {
    const dev = policy(['127.0.0.1/32', '::1/128', 'localhost']);
    expect(() => checkHostLiteral('127.0.0.1', dev)).not.toThrow();
    expect(() => checkHostLiteral('::1', dev)).not.toThrow();
    expect(() => checkHostLiteral('::ffff:127.0.0.1', dev)).not.toThrow();
    denied(() => checkHostLiteral('127.0.0.2', dev));
  });

  it('matches CIDR ranges at their edges', () => {
    const ranges = policy(['10.20.0.0/16', 'fd12:3456::/32']);
    expect(() => checkHostLiteral('10.20.255.255', ranges)).not.toThrow();
    denied(() => checkHostLiteral('10.21.0.0', ranges));
    expect(() => checkHostLiteral('fd12:3456:ffff::1', ranges)).not.toThrow();
    denied(() => checkHostLiteral('fd12:3457::1', ranges));
  });

  it('matches a non-byte-aligned prefix', () => {
    const ranges = policy(['172.16.0.0/13']);
    expect(() => checkHostLiteral('172.23.255.255', ranges)).not.toThrow();
    denied(() => checkHostLiteral('172.24.0.0', ranges));
  });

  it('treats a bare IP entry as a single-address range', () => {
    const single = policy(['10.0.0.5', '::ffff:127.0.0.9']);
    expect(() => checkHostLiteral('10.0.0.5', single)).not.toThrow();
    denied(() => checkHostLiteral('10.0.0.6', single));
    expect(() => checkHostLiteral('127.0.0.9', single)).not.toThrow();
  });

  it('matches hostnames exactly, case-insensitively and ignoring a trailing dot on either side', () => {
    const names = policy(['LocalHost.', 'db.Internal']);
    expect(() => checkHostLiteral('localhost', names)).not.toThrow();
    expect(() => checkHostLiteral('LOCALHOST.', names)).not.toThrow();
    expect(() => checkHostLiteral('DB.INTERNAL.', names)).not.toThrow();
    denied(() => checkHostLiteral('x.localhost', names));
    denied(() => checkHostLiteral('other.internal', names));
  });

  it('reports entries that can never match and ignores them', () => {
    expect(invalidAllowlistEntries(['127.0.0.1/32', 'localhost', '10.0.0.0/33', 'not a host', '::1/129', '1.2.3.4/x'])).toEqual([
      '10.0.0.0/33',
      'not a host',
      '::1/129',
      '1.2.3.4/x',
    ]);
    denied(() => checkHostLiteral('10.0.0.1', policy(['10.0.0.0/33'])));
  });

  it('defaults to ST with an empty allowlist', () => {
    expect(DEFAULT_HOST_SAFETY_POLICY).toEqual({ allowPrivate: true, allowlist: [] });
  });
});

describe(resolveDialTarget.name, () => {
  it('returns an IP literal as is, with no servername and no lookup', async () => {
    const lookup = jest.fn<ReturnType<LookupFn>, Parameters<LookupFn>>();
    await expect(resolveDialTarget('8.8.4.4', MT, { lookup })).resolves.toEqual({ address: '8.8.4.4', family: 4, servername: '' });
    await expect(resolveDialTarget('[2606:4700::1111]', MT, { lookup })).resolves.toEqual({
      address: '2606:4700::1111',
      family: 6,
      servername: '',
    });
    expect(lookup).not.toHaveBeenCalled();
  });

  it('pins the first checked address and keeps the hostname for TLS', async () => {
    const lookup = jest.fn(lookupReturning('93.184.216.34', '2606:2800::1'));
    await expect(resolveDialTarget('DB.Example.com.', MT, { lookup })).resolves.toEqual({
      address: '93.184.216.34',
      family: 4,
      servername: 'db.example.com',
    });
    expect(lookup).toHaveBeenCalledTimes(1);
  });

  it('denies a name when any resolved address is denied (rebinding)', async () => {
    await expect(resolveDialTarget('db.example.com', ST, { lookup: lookupReturning('93.184.216.34', '127.0.0.1') })).rejects.toMatchObject({
      category: 'validation',
      message: 'datasource host is not allowed',
    });
    await expect(resolveDialTarget('db.example.com', ST, { lookup: lookupReturning('::ffff:169.254.169.254') })).rejects.toMatchObject({
      category: 'validation',
    });
  });

  it('applies the private rule to resolved addresses per mode', async () => {
    const lookup = lookupReturning('10.1.2.3');
    await expect(resolveDialTarget('db.example.com', ST, { lookup })).resolves.toMatchObject({ address: '10.1.2.3' });
    await expect(resolveDialTarget('db.example.com', MT, { lookup })).rejects.toMatchObject({ category: 'validation' });
  });

  it('denies a denied literal or name before any lookup', async () => {
    const lookup = jest.fn(lookupReturning('93.184.216.34'));
    await expect(resolveDialTarget('metadata.google.internal', ST, { lookup })).rejects.toMatchObject({ category: 'validation' });
    await expect(resolveDialTarget('127.0.0.1', ST, { lookup })).rejects.toMatchObject({ category: 'validation' });
    expect(lookup).not.toHaveBeenCalled();
  });

  it('lets an allowlisted name through whatever it resolves to', async () => {
    const dev: HostSafetyPolicy = { allowPrivate: false, allowlist: ['localhost'] };
    await expect(resolveDialTarget('localhost', dev, { lookup: lookupReturning('::1', '127.0.0.1') })).resolves.toEqual({
      address: '::1',
      family: 6,
      servername: 'localhost',
    });
  });

  it('lets addresses in an allowlisted CIDR through for a name that is not listed', async () => {
    const dev: HostSafetyPolicy = { allowPrivate: false, allowlist: ['127.0.0.1/32'] };
    await expect(resolveDialTarget('db.example.com', dev, { lookup: lookupReturning('127.0.0.1') })).resolves.toMatchObject({
      address: '127.0.0.1',
    });
    await expect(resolveDialTarget('db.example.com', dev, { lookup: lookupReturning('127.0.0.1', '127.0.0.2') })).rejects.toMatchObject({
      category: 'validation',
    });
  });

  it('reports a DNS failure as a connect error, not as a denial', async () => {
    const lookup: LookupFn = () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND secret.example.com'), { code: 'ENOTFOUND' }));
    const error = await resolveDialTarget('secret.example.com', MT, { lookup }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect(error).toMatchObject({ category: 'connect', message: ErrorText.connectFailed });
    expect(String(error)).not.toContain('secret');
  });

  it('reports an empty lookup result as a connect error', async () => {
    await expect(resolveDialTarget('db.example.com', MT, { lookup: lookupReturning() })).rejects.toMatchObject({ category: 'connect' });
  });

  it('skips the checks for an exempt datasource but still resolves and pins', async () => {
    await expect(resolveDialTarget('127.0.0.1', MT, { exempt: true })).resolves.toEqual({ address: '127.0.0.1', family: 4, servername: '' });
    await expect(resolveDialTarget('mongo.internal', MT, { exempt: true, lookup: lookupReturning('10.0.0.7', '127.0.0.1') })).resolves.toEqual({
      address: '10.0.0.7',
      family: 4,
      servername: 'mongo.internal',
    });
  });

  it('stops waiting for a lookup when the signal aborts', async () => {
    const controller = new AbortController();
    const pending = resolveDialTarget('db.example.com', MT, { lookup: () => new Promise(() => undefined), signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(EngineError);
  });

  it('fails an unparseable host closed, before any lookup', async () => {
    const lookup = jest.fn(lookupReturning('93.184.216.34'));
    await expect(resolveDialTarget('127.1', ST, { lookup })).rejects.toMatchObject({ category: 'validation' });
    expect(lookup).not.toHaveBeenCalled();
  });
});
