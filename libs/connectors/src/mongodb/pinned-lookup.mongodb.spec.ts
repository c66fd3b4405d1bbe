import type { LookupAddress } from 'node:dns';
import { EngineError } from '@fetcher/engine';
import type { DialTarget } from '../common/host-safety';
import { pinnedLookup } from './pinned-lookup.mongodb';

const TARGET: DialTarget = { address: '203.0.113.7', family: 4, servername: 'db.example.com' };

/** Calls a lookup hook the way net.connect does and returns what it answered. */
function ask(
  lookup: ReturnType<typeof pinnedLookup>,
  hostname: string,
  all: boolean,
): Promise<{ error: Error | null; address: string | LookupAddress[]; family?: number }> {
  return new Promise((resolve) => {
    lookup(hostname, { all }, (error, address, family) => resolve({ error, address, family }));
  });
}

describe(pinnedLookup.name, () => {
  const others: string[] = [];
  const resolveOther = (name: string): Promise<DialTarget> => {
    others.push(name);
    return name === 'member.example.com'
      ? Promise.resolve({ address: '198.51.100.9', family: 4, servername: name })
      : Promise.reject(new EngineError('validation', 'datasource host is not allowed'));
  };
  beforeEach(() => {
    others.length = 0;
  });

  it('answers the dialled hostname with the checked address, without resolving again', async () => {
    const lookup = pinnedLookup('db.example.com', TARGET, resolveOther);
    expect(await ask(lookup, 'db.example.com', false)).toEqual({ error: null, address: '203.0.113.7', family: 4 });
    expect(others).toEqual([]);
  });

  it('answers the list form when node asks for all addresses', async () => {
    const lookup = pinnedLookup('db.example.com', TARGET, resolveOther);
    expect(await ask(lookup, 'db.example.com', true)).toEqual({
      error: null,
      address: [{ address: '203.0.113.7', family: 4 }],
      family: undefined,
    });
  });

  it('compares the hostname case-insensitively and ignores a trailing dot', async () => {
    const lookup = pinnedLookup('DB.Example.com.', TARGET, resolveOther);
    expect((await ask(lookup, 'db.example.COM', false)).address).toBe('203.0.113.7');
    expect(others).toEqual([]);
  });

  it('sends other hostnames (replica-set members) through the guard', async () => {
    const lookup = pinnedLookup('db.example.com', TARGET, resolveOther);
    expect(await ask(lookup, 'member.example.com', false)).toEqual({ error: null, address: '198.51.100.9', family: 4 });
    expect(others).toEqual(['member.example.com']);
  });

  it('fails the socket when the guard refuses another hostname', async () => {
    const lookup = pinnedLookup('db.example.com', TARGET, resolveOther);
    const answer = await ask(lookup, 'evil.example.com', false);
    expect(answer.error).toBeInstanceOf(EngineError);
    expect(answer.address).toBe('');
  });

  it('pins an IPv6 target with its family', async () => {
    const lookup = pinnedLookup('v6.example.com', { address: '2001:4860::8888', family: 6, servername: 'v6.example.com' }, resolveOther);
    expect(await ask(lookup, 'v6.example.com', false)).toEqual({ error: null, address: '2001:4860::8888', family: 6 });
  });
});
