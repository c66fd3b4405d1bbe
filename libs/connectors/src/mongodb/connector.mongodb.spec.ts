import type { LookupAddress } from 'node:dns';
import { inspect } from 'node:util';
import type { LookupFunction } from 'node:net';
import { MongoNetworkError, type Db, type MongoClientOptions } from 'mongodb';
import { EngineError, ErrorText, withConnectionSecrets, type ConnectionDescriptor } from '@fetcher/engine';
import type { ConnectorAttributes } from '../common/attributes';
import { HostNotAllowedError } from '../common/errors';
import type { LookupFn } from '../common/host-safety';
import type { ConnectorOptions } from '../common/options';
import { MongoConnector, type MongoClientLike } from './connector.mongodb';
import { mongoDescriptor } from './testing/mongo-descriptor';

const PASSWORD = 'Sup3r-S3cret!';

/** Records what the connector asked the driver for; connect/ping fail when told to. */
class FakeClient implements MongoClientLike {
  closed = 0;
  pings = 0;
  constructor(
    readonly uri: string,
    readonly options: MongoClientOptions,
    private readonly failConnect?: Error,
    private readonly failPing?: Error,
  ) {}
  connect(): Promise<unknown> {
    return this.failConnect ? Promise.reject(this.failConnect) : Promise.resolve(this);
  }
  db(): Db {
    const command = (): Promise<unknown> => {
      this.pings++;
      return this.failPing ? Promise.reject(this.failPing) : Promise.resolve({ ok: 1 });
    };
    return { command } as unknown as Db;
  }
  close(): Promise<void> {
    this.closed++;
    return Promise.resolve();
  }
}

const descriptor = (overrides: Partial<ConnectionDescriptor> = {}, attributes: ConnectorAttributes = {}): ConnectionDescriptor =>
  withConnectionSecrets(mongoDescriptor({ sslMode: 'true', hostAttributes: { ...attributes }, ...overrides }), { password: PASSWORD });

const lookups: string[] = [];
const fakeDns: LookupFn = (hostname) => {
  lookups.push(hostname);
  if (hostname === 'db.example.com') return Promise.resolve([{ address: '93.184.216.34', family: 4 }]);
  if (hostname === 'inside.example.com') return Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
  return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
};
const options: ConnectorOptions = { hostSafety: { allowPrivate: false, allowlist: [] }, lookup: fakeDns };

function setup(d: ConnectionDescriptor, failConnect?: Error, failPing?: Error) {
  const clients: FakeClient[] = [];
  const sut = new MongoConnector(d, options, (uri, clientOptions) => {
    const client = new FakeClient(uri, clientOptions, failConnect, failPing);
    clients.push(client);
    return client;
  });
  return { sut, clients };
}

const signal = () => new AbortController().signal;

function lookupAnswer(lookup: LookupFunction, hostname: string): Promise<string | LookupAddress[]> {
  return new Promise((resolve, reject) => {
    lookup(hostname, {}, (error, address) => (error ? reject(error) : resolve(address)));
  });
}

/**
 * The renderings a host puts in responses and structured logs. (util.inspect is left out: it walks
 * Error.cause through the engine's prototype getter, which is the engine's contract to keep.)
 */
function renderings(error: unknown): string[] {
  return [String(error), (error as Error).message, JSON.stringify(error), (error as Error).toString(), (error as Error).stack ?? ''];
}

describe(MongoConnector.name, () => {
  beforeEach(() => {
    lookups.length = 0;
  });

  it('connects with the original hostname in the string and the checked address behind the lookup hook', async () => {
    const { sut, clients } = setup(descriptor());
    await sut.testConnection(signal());
    expect(clients).toHaveLength(1);
    const [client] = clients;
    expect(client.uri).toBe(`mongodb://reader:${PASSWORD}@db.example.com:27017/crm?authSource=admin&directConnection=true`);
    expect(client.options).toMatchObject({ tls: true, maxPoolSize: 2, connectTimeoutMS: 5000, serverSelectionTimeoutMS: 5000 });
    expect(client.pings).toBe(1);
    expect(lookups).toEqual(['db.example.com']);
    expect(await lookupAnswer(client.options.lookup!, 'db.example.com')).toBe('93.184.216.34');
    expect(lookups).toEqual(['db.example.com']); // pinned: no second resolution
  });

  it('wraps a driver failure as a connect error whose renderings carry no password, URI or driver text', async () => {
    const driverError = new MongoNetworkError(
      `connect ECONNREFUSED for mongodb://reader:${PASSWORD}@db.example.com:27017/crm`,
    );
    const { sut, clients } = setup(descriptor(), driverError);
    const error = await sut.testConnection(signal()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EngineError);
    expect(error).toMatchObject({ category: 'connect', message: ErrorText.connectFailed });
    expect((error as EngineError).cause).toBe(driverError); // kept for diagnosis, never rendered
    for (const text of renderings(error)) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain('mongodb://');
      expect(text).not.toContain('ECONNREFUSED');
      expect(text).not.toContain('db.example.com');
    }
    expect(clients[0].closed).toBe(1);
  });

  it('wraps a failed ping as a connect error and closes the client', async () => {
    const { sut, clients } = setup(descriptor(), undefined, new Error(`auth failed for ${PASSWORD}`));
    await expect(sut.testConnection(signal())).rejects.toMatchObject({ category: 'connect', message: ErrorText.connectFailed });
    expect(clients[0].closed).toBe(1);
  });

  it('refuses a host that resolves to a denied address before creating any client', async () => {
    const { sut, clients } = setup(descriptor({ host: 'inside.example.com' }));
    const error = await sut.testConnection(signal()).catch((e: unknown) => e);
    expect(error).toMatchObject({ category: 'validation' });
    expect((error as EngineError).cause).toBeInstanceOf(HostNotAllowedError);
    expect(renderings(error).join(' ')).not.toContain('inside.example.com');
    expect(clients).toHaveLength(0);
  });

  it('reports a DNS failure as a connect error, not as a denied host', async () => {
    const { sut, clients } = setup(descriptor({ host: 'nowhere.example.com' }));
    await expect(sut.testConnection(signal())).rejects.toMatchObject({ category: 'connect' });
    expect(clients).toHaveLength(0);
  });

  it('exempts internal datasources from host safety, still pins them, and defaults authSource to the database', async () => {
    const { sut, clients } = setup(descriptor({ host: 'inside.example.com', sslMode: '' }, { internal: true }));
    await sut.testConnection(signal());
    expect(clients[0].uri).toBe(`mongodb://reader:${PASSWORD}@inside.example.com:27017/crm?authSource=crm&directConnection=true`);
    expect(clients[0].options.tls).toBe(false);
    expect(await lookupAnswer(clients[0].options.lookup!, 'inside.example.com')).toBe('127.0.0.1');
  });

  it('does not start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('canceled'));
    const { sut, clients } = setup(descriptor());
    await expect(sut.testConnection(controller.signal)).rejects.toMatchObject({ category: 'canceled' });
    expect(clients).toHaveLength(0);
  });

  it('close() is idempotent, safe without a connection and after a failed one', async () => {
    const fresh = setup(descriptor());
    await fresh.sut.close();
    await fresh.sut.close();
    const failed = setup(descriptor(), new Error('boom'));
    await expect(failed.sut.testConnection(signal())).rejects.toBeInstanceOf(EngineError);
    await failed.sut.close();
    const connected = setup(descriptor());
    await connected.sut.testConnection(signal());
    await connected.sut.close();
    await connected.sut.close();
    expect(connected.clients[0].closed).toBe(1);
  });

  it('refuses work after close()', async () => {
    const { sut, clients } = setup(descriptor());
    await sut.testConnection(signal());
    await sut.close();
    await expect(sut.testConnection(signal())).rejects.toMatchObject({ category: 'connect' });
    await expect(sut.discoverSchema(signal())).rejects.toMatchObject({ category: 'unavailable' });
    await expect(sut.queryStream({ configName: 'crm', tables: {} }, signal())).rejects.toMatchObject({ category: 'unavailable' });
    expect(clients).toHaveLength(1);
  });

  it('never shows the decrypted password through JSON.stringify or util.inspect, before or after connecting', async () => {
    const { sut } = setup(descriptor());
    const shown = () => [JSON.stringify(sut), inspect(sut), inspect(sut, { depth: 20, showHidden: true })].join(' ');
    expect(shown()).not.toContain(PASSWORD);
    await sut.testConnection(signal());
    expect(shown()).not.toContain(PASSWORD);
    expect(shown()).not.toContain('mongodb://');
  });

  it('pings again when asked to test an open connection', async () => {
    const { sut, clients } = setup(descriptor());
    await sut.testConnection(signal());
    await sut.testConnection(signal());
    expect(clients).toHaveLength(1);
    expect(clients[0].pings).toBe(2);
  });
});
