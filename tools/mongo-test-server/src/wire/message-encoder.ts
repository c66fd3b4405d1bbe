import { serialize } from 'bson';
import type { BsonDocument } from '../bson/bson-values';
import { HEADER_SIZE, OpCode } from './op-code';

/** An OP_MSG reply with a single kind-0 section. */
export function encodeOpMsgReply(requestId: number, responseTo: number, reply: BsonDocument): Buffer {
  const body = serialize(reply);
  const header = Buffer.alloc(HEADER_SIZE + 5);
  header.writeInt32LE(header.length + body.length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(responseTo, 8);
  header.writeInt32LE(OpCode.msg, 12);
  header.writeUInt32LE(0, 16); // flags
  header.writeUInt8(0, 20); // section kind 0
  return Buffer.concat([header, body]);
}

/** The legacy OP_REPLY that answers an OP_QUERY handshake. */
export function encodeOpReply(requestId: number, responseTo: number, reply: BsonDocument): Buffer {
  const body = serialize(reply);
  const header = Buffer.alloc(HEADER_SIZE + 20);
  header.writeInt32LE(header.length + body.length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(responseTo, 8);
  header.writeInt32LE(OpCode.reply, 12);
  header.writeInt32LE(0, 16); // responseFlags
  header.writeBigInt64LE(0n, 20); // cursorID
  header.writeInt32LE(0, 28); // startingFrom
  header.writeInt32LE(1, 32); // numberReturned
  return Buffer.concat([header, body]);
}
