import { Int32, serialize, type Document } from 'bson';
import { decodeMessage } from './message-decoder';
import { MalformedMessageError } from './malformed-message.error';

function frame(opCode: number, body: Buffer, requestId = 7): Buffer {
  const header = Buffer.alloc(16);
  header.writeInt32LE(16 + body.length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(opCode, 12);
  return Buffer.concat([header, body]);
}

function flags(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value, 0);
  return buffer;
}

function sequence(identifier: string, docs: Document[]): Buffer {
  const payload = Buffer.concat([Buffer.from(`${identifier}\0`), ...docs.map((d) => serialize(d))]);
  const size = Buffer.alloc(4);
  size.writeInt32LE(payload.length + 4, 0);
  return Buffer.concat([Buffer.from([1]), size, payload]);
}

describe(decodeMessage.name, () => {
  it('decodes an OP_MSG body and merges document sequences under their identifier', () => {
    const body = Buffer.concat([flags(0), Buffer.from([0]), serialize({ insert: 'c', $db: 'd' }), sequence('documents', [{ a: 1 }, { a: 2 }])]);
    const message = decodeMessage(frame(2013, body));
    expect(message).toEqual({ requestId: 7, opCode: 2013, database: 'd', moreToCome: false,
      command: { insert: 'c', $db: 'd', documents: [{ a: new Int32(1) }, { a: new Int32(2) }] } });
  });

  it('keeps numbers in their BSON wrapper types', () => {
    const message = decodeMessage(frame(2013, Buffer.concat([flags(0), Buffer.from([0]), serialize({ ping: 1, $db: 'a' })])));
    expect(message.command.ping).toBeInstanceOf(Int32);
  });

  it('ignores a trailing checksum and reports moreToCome', () => {
    const body = Buffer.concat([flags(3), Buffer.from([0]), serialize({ ping: 1, $db: 'a' }), Buffer.from([1, 2, 3, 4])]);
    expect(decodeMessage(frame(2013, body))).toMatchObject({ moreToCome: true, command: { ping: new Int32(1) } });
  });

  it('decodes an OP_QUERY command, unwrapping $query', () => {
    const counts = Buffer.alloc(8);
    const body = Buffer.concat([flags(0), Buffer.from('admin.$cmd\0'), counts, serialize({ $query: { isMaster: 1 } })]);
    expect(decodeMessage(frame(2004, body))).toMatchObject({ opCode: 2004, database: 'admin', command: { isMaster: new Int32(1) } });
  });

  it.each<[string, Buffer]>([
    ['an unknown opcode', frame(42, Buffer.alloc(8))],
    ['two body sections', frame(2013, Buffer.concat([flags(0), Buffer.from([0]), serialize({ a: 1, $db: 'x' }), Buffer.from([0]), serialize({ b: 1 })]))],
    ['no body section', frame(2013, Buffer.concat([flags(0), sequence('documents', [{ a: 1 }])]))],
    ['a truncated document', frame(2013, Buffer.concat([flags(0), Buffer.from([0]), serialize({ ping: 1, $db: 'a' }).subarray(0, 10)]))],
    ['a body that is not BSON', frame(2013, Buffer.concat([flags(0), Buffer.from([0, 8, 0, 0, 0, 0x42, 0x61, 0, 0])]))],
    ['an OP_QUERY that is not a command', frame(2004, Buffer.concat([flags(0), Buffer.from('db.coll\0'), Buffer.alloc(8), serialize({ a: 1 })]))],
  ])('rejects %s as malformed', (_name, input) => {
    expect(() => decodeMessage(input)).toThrow(MalformedMessageError);
  });
});
