import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { deserialize, serialize, type Document } from 'bson';
import { MongoClient } from 'mongodb';
import { startMongoTestServer, type MongoTestServer } from './mongo-test-server';

const OP_REPLY = 1;
const OP_QUERY = 2004;
const OP_MSG = 2013;

function frame(requestId: number, opCode: number, body: Buffer): Buffer {
  const header = Buffer.alloc(16);
  header.writeInt32LE(16 + body.length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(0, 8);
  header.writeInt32LE(opCode, 12);
  return Buffer.concat([header, body]);
}

function opMsg(requestId: number, command: Document, options: { flags?: number; sequence?: [string, Document[]] } = {}): Buffer {
  const flags = Buffer.alloc(4);
  flags.writeUInt32LE(options.flags ?? 0, 0);
  const parts = [flags, Buffer.from([0]), serialize(command)];
  if (options.sequence) {
    const [identifier, documents] = options.sequence;
    const payload = Buffer.concat([Buffer.from(`${identifier}\0`), ...documents.map((d) => serialize(d))]);
    const size = Buffer.alloc(4);
    size.writeInt32LE(4 + payload.length, 0);
    parts.push(Buffer.from([1]), size, payload);
  }
  if ((options.flags ?? 0) & 1) parts.push(Buffer.alloc(4)); // checksum bytes, ignored by the server
  return frame(requestId, OP_MSG, Buffer.concat(parts));
}

function opQuery(requestId: number, namespace: string, query: Document): Buffer {
  const head = Buffer.alloc(4);
  const counts = Buffer.alloc(8);
  counts.writeInt32LE(-1, 4);
  return frame(requestId, OP_QUERY, Buffer.concat([head, Buffer.from(`${namespace}\0`), counts, serialize(query)]));
}

interface Reply { opCode: number; responseTo: number; doc: Document }

/** Reads whole replies off a raw socket, in order. */
class RawClient {
  private buffered = Buffer.alloc(0);
  private readonly waiting: ((reply: Reply) => void)[] = [];
  private readonly ready: Reply[] = [];

  constructor(readonly socket: Socket) {
    // The server may hang up with a reset (ECONNRESET) rather than a FIN; either way 'close' follows.
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 4 && this.buffered.length >= this.buffered.readInt32LE(0)) {
        const length = this.buffered.readInt32LE(0);
        const message = this.buffered.subarray(0, length);
        this.buffered = this.buffered.subarray(length);
        const opCode = message.readInt32LE(12);
        const bodyStart = opCode === OP_REPLY ? 36 : 21;
        const reply = { opCode, responseTo: message.readInt32LE(8), doc: deserialize(message.subarray(bodyStart)) };
        const waiter = this.waiting.shift();
        if (waiter) waiter(reply);
        else this.ready.push(reply);
      }
    });
  }

  static async open(server: MongoTestServer): Promise<RawClient> {
    const socket = connect(server.port, '127.0.0.1');
    await once(socket, 'connect');
    return new RawClient(socket);
  }

  next(): Promise<Reply> {
    const ready = this.ready.shift();
    return ready ? Promise.resolve(ready) : new Promise((resolve) => this.waiting.push(resolve));
  }

  async closed(): Promise<void> {
    if (!this.socket.destroyed) await once(this.socket, 'close');
  }
}

describe('the wire protocol of the mongo test server', () => {
  let server: MongoTestServer;
  const raws: RawClient[] = [];
  const openRaw = async (): Promise<RawClient> => {
    const raw = await RawClient.open(server);
    raws.push(raw);
    return raw;
  };

  beforeAll(async () => {
    server = await startMongoTestServer();
  });

  afterAll(async () => {
    for (const raw of raws) raw.socket.destroy();
    await server?.close();
  });

  /** The server still answers a driver on a fresh connection. */
  async function expectStillServing(): Promise<void> {
    const client = new MongoClient(server.uri);
    try {
      await expect(client.db('admin').command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
    } finally {
      await client.close();
    }
  }

  it('answers the legacy OP_QUERY isMaster handshake with an OP_REPLY', async () => {
    const raw = await openRaw();
    raw.socket.write(opQuery(41, 'admin.$cmd', { isMaster: 1, helloOk: true }));
    const reply = await raw.next();
    expect(reply).toMatchObject({ opCode: OP_REPLY, responseTo: 41, doc: { ok: 1, ismaster: true, helloOk: true, maxWireVersion: 21 } });
    expect(reply.doc).not.toHaveProperty('topologyVersion');
    expect(reply.doc).not.toHaveProperty('compression');
  });

  it('merges a kind-1 document sequence into the command, and ignores a checksum', async () => {
    const raw = await openRaw();
    const db = `mts-wire-${randomUUID().slice(0, 8)}`;
    raw.socket.write(opMsg(1, { insert: 'seq', $db: db }, { sequence: ['documents', [{ _id: 1 }, { _id: 2 }, { _id: 3 }]] }));
    expect(await raw.next()).toMatchObject({ opCode: OP_MSG, responseTo: 1, doc: { n: 3, ok: 1 } });
    raw.socket.write(opMsg(2, { count: 'seq', $db: db }, { flags: 1 }));
    expect(await raw.next()).toMatchObject({ responseTo: 2, doc: { n: 3, ok: 1 } });
  });

  it('does not reply to a moreToCome message, but executes it', async () => {
    const raw = await openRaw();
    const db = `mts-wire-${randomUUID().slice(0, 8)}`;
    raw.socket.write(opMsg(10, { insert: 'quiet', documents: [{ a: 1 }], $db: db }, { flags: 2 }));
    raw.socket.write(opMsg(11, { count: 'quiet', $db: db }));
    expect(await raw.next()).toMatchObject({ responseTo: 11, doc: { n: 1 } });
  });

  it('reassembles a frame that arrives one byte at a time', async () => {
    const raw = await openRaw();
    for (const byte of opMsg(20, { ping: 1, $db: 'admin' })) raw.socket.write(Buffer.from([byte]));
    expect(await raw.next()).toMatchObject({ responseTo: 20, doc: { ok: 1 } });
  });

  it('answers an unknown command with CommandNotFound (59) and records its name', async () => {
    const raw = await openRaw();
    raw.socket.write(opMsg(30, { frobnicate: 1, $db: 'admin' }));
    expect(await raw.next()).toMatchObject({ doc: { ok: 0, code: 59, codeName: 'CommandNotFound' } });
    expect(server.unknownCommands()).toContain('frobnicate');
  });

  describe('a malformed frame closes only its own socket', () => {
    const cases: [string, () => Buffer][] = [
      ['a length below the header size', () => Buffer.from([5, 0, 0, 0, 1, 2, 3, 4])],
      ['a length beyond the maximum message size', () => { const b = Buffer.alloc(16); b.writeInt32LE(0x7fffffff, 0); return b; }],
      ['an unknown opcode', () => frame(1, 9999, Buffer.alloc(8))],
      ['a compressed message (none was advertised)', () => frame(1, 2012, Buffer.alloc(16))],
      ['a body that is not BSON', () => frame(1, OP_MSG, Buffer.concat([Buffer.alloc(4), Buffer.from([0]), Buffer.from([12, 0, 0, 0, 0x42, 0xff, 0xff, 0, 1, 2, 3, 0])]))],
      ['a document size that overruns the frame', () => frame(1, OP_MSG, Buffer.concat([Buffer.alloc(4), Buffer.from([0, 0xff, 0, 0, 0, 0])]))],
      ['an unknown section kind', () => frame(1, OP_MSG, Buffer.concat([Buffer.alloc(4), Buffer.from([7]), serialize({ ping: 1, $db: 'admin' })]))],
      ['an OP_MSG without $db', () => opMsg(1, { ping: 1 })],
    ];

    it.each(cases)('%s', async (_name, build) => {
      const bystander = await openRaw();
      const offender = await openRaw();
      offender.socket.write(build());
      await offender.closed();
      bystander.socket.write(opMsg(50, { ping: 1, $db: 'admin' }));
      expect(await bystander.next()).toMatchObject({ responseTo: 50, doc: { ok: 1 } });
      await expectStillServing();
    });
  });

  it('serves 50 concurrent clients', async () => {
    const db = `mts-wire-${randomUUID().slice(0, 8)}`;
    const clients = Array.from({ length: 50 }, () => new MongoClient(server.uri, { maxPoolSize: 2 }));
    try {
      const counts = await Promise.all(clients.map(async (client, i) => {
        await client.connect();
        const coll = client.db(db).collection('shared');
        await coll.insertMany(Array.from({ length: 20 }, (_, j) => ({ client: i, j })));
        await coll.updateMany({ client: i }, { $set: { seen: true } });
        return coll.countDocuments({ client: i, seen: true });
      }));
      expect(counts).toEqual(Array.from({ length: 50 }, () => 20));
      expect(await clients[0].db(db).collection('shared').countDocuments()).toBe(1000);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
    // An allowance, not an assertion: 50 driver handshakes take ~2 s alone, far more on a loaded
    // 2-core CI box, and jest's 5 s default applies (a per-project testTimeout is ignored).
  }, 60_000);

  it('close() destroys open sockets and stops listening', async () => {
    const own = await startMongoTestServer();
    const raw = await RawClient.open(own);
    raw.socket.write(opMsg(60, { ping: 1, $db: 'admin' }));
    await raw.next(); // the server has accepted this connection
    await own.close();
    await raw.closed();
    const refused = connect(own.port, '127.0.0.1');
    const [error] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('ECONNREFUSED');
  });
});
