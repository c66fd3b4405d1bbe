import { deserialize } from 'bson';
import type { BsonDocument } from '../bson/bson-values';
import type { IncomingMessage } from './incoming-message';
import { MalformedMessageError } from './malformed-message.error';
import { HEADER_SIZE, OpCode } from './op-code';

const CHECKSUM_PRESENT = 1;
const MORE_TO_COME = 2;

/** promoteValues off keeps Int32/Double/Long distinct so they round-trip; BSONRegExp keeps
 *  regexes with PCRE-only flags intact. */
const DESERIALIZE_OPTIONS = { promoteValues: false, promoteBuffers: false, bsonRegExp: true } as const;

/** Decodes one whole frame. Throws MalformedMessageError on anything it cannot read. */
export function decodeMessage(frame: Buffer): IncomingMessage {
  const requestId = frame.readInt32LE(4);
  const opCode = frame.readInt32LE(12);
  try {
    switch (opCode) {
      case OpCode.msg: return decodeOpMsg(frame, requestId);
      case OpCode.query: return decodeOpQuery(frame, requestId);
      default: throw new MalformedMessageError(`unsupported opcode ${opCode}`);
    }
  } catch (error) {
    if (error instanceof MalformedMessageError) throw error;
    // bson's own parse errors (BSONError) and out-of-range reads (RangeError) both mean a bad frame.
    throw new MalformedMessageError('unreadable message body');
  }
}

function decodeOpMsg(frame: Buffer, requestId: number): IncomingMessage {
  const flags = frame.readUInt32LE(HEADER_SIZE);
  const end = flags & CHECKSUM_PRESENT ? frame.length - 4 : frame.length;
  let offset = HEADER_SIZE + 4;
  let body: BsonDocument | undefined;
  const sequences: [string, BsonDocument[]][] = [];
  while (offset < end) {
    const kind = frame.readUInt8(offset);
    offset += 1;
    if (kind === 0) {
      if (body) throw new MalformedMessageError('OP_MSG has more than one body section');
      const size = documentSize(frame, offset, end);
      body = deserialize(frame.subarray(offset, offset + size), DESERIALIZE_OPTIONS);
      offset += size;
    } else if (kind === 1) {
      const size = frame.readInt32LE(offset);
      const sectionEnd = offset + size;
      if (size < 5 || sectionEnd > end) throw new MalformedMessageError('bad document sequence size');
      const nameEnd = frame.indexOf(0, offset + 4);
      if (nameEnd < 0 || nameEnd >= sectionEnd) throw new MalformedMessageError('bad document sequence name');
      const identifier = frame.toString('utf8', offset + 4, nameEnd);
      const documents: BsonDocument[] = [];
      let cursor = nameEnd + 1;
      while (cursor < sectionEnd) {
        const docSize = documentSize(frame, cursor, sectionEnd);
        documents.push(deserialize(frame.subarray(cursor, cursor + docSize), DESERIALIZE_OPTIONS));
        cursor += docSize;
      }
      sequences.push([identifier, documents]);
      offset = sectionEnd;
    } else {
      throw new MalformedMessageError(`unknown OP_MSG section kind ${kind}`);
    }
  }
  if (!body) throw new MalformedMessageError('OP_MSG has no body section');
  // Kind-1 sequences are the command's array fields sent out of line (insert's `documents`, ...).
  for (const [identifier, documents] of sequences) body[identifier] = documents;
  const database = body.$db;
  if (typeof database !== 'string' || database.length === 0) throw new MalformedMessageError('OP_MSG without $db');
  return { requestId, opCode: OpCode.msg, database, command: body, moreToCome: (flags & MORE_TO_COME) !== 0 };
}

/** Legacy OP_QUERY: driver 7.8 still opens every connection with an `isMaster` sent this way. */
function decodeOpQuery(frame: Buffer, requestId: number): IncomingMessage {
  let offset = HEADER_SIZE + 4;
  const nameEnd = frame.indexOf(0, offset);
  if (nameEnd < 0) throw new MalformedMessageError('OP_QUERY without a collection name');
  const namespace = frame.toString('utf8', offset, nameEnd);
  offset = nameEnd + 1 + 8; // numberToSkip, numberToReturn
  const size = documentSize(frame, offset, frame.length);
  let command: BsonDocument = deserialize(frame.subarray(offset, offset + size), DESERIALIZE_OPTIONS);
  if (command.$query !== null && typeof command.$query === 'object') command = command.$query as BsonDocument;
  const dot = namespace.indexOf('.');
  if (dot <= 0 || namespace.slice(dot + 1) !== '$cmd') {
    throw new MalformedMessageError('OP_QUERY is only accepted for commands');
  }
  return { requestId, opCode: OpCode.query, database: namespace.slice(0, dot), command, moreToCome: false };
}

function documentSize(frame: Buffer, offset: number, end: number): number {
  if (offset + 5 > end) throw new MalformedMessageError('truncated document');
  const size = frame.readInt32LE(offset);
  if (size < 5 || offset + size > end) throw new MalformedMessageError('bad document size');
  return size;
}
