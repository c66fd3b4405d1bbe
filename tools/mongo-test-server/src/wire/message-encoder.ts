import { serialize } from 'bson';
import type { BsonDocument } from '../bson/bson-values';
import { HEADER_SIZE, OpCode } from './op-code';

/** An OP_MSG reply with a single kind-0 section. */
export function encodeOpMsgReply(requestId: number, responseTo: number, reply: BsonDocument): Buffer {
  return encodeReply(OpCode.msg, requestId, responseTo, reply, 5, (prefix) => {
    prefix.writeUInt32LE(0, 16); // flags
    prefix.writeUInt8(0, 20); // section kind 0
  });
}

/** The legacy OP_REPLY that answers an OP_QUERY handshake. */
export function encodeOpReply(requestId: number, responseTo: number, reply: BsonDocument): Buffer {
  return encodeReply(OpCode.reply, requestId, responseTo, reply, 20, (prefix) => {
    prefix.writeInt32LE(0, 16); // responseFlags
    prefix.writeBigInt64LE(0n, 20); // cursorID
    prefix.writeInt32LE(0, 28); // startingFrom
    prefix.writeInt32LE(1, 32); // numberReturned
  });
}

/**
 * The standard message header (length, ids, opcode), `fieldsSize` bytes of the opcode's own fields
 * (written by `writeFields` at their absolute offsets), then `reply` as the only document.
 */
function encodeReply(
  opCode: number,
  requestId: number,
  responseTo: number,
  reply: BsonDocument,
  fieldsSize: number,
  writeFields: (prefix: Buffer) => void,
): Buffer {
  const body = serialize(reply);
  const prefix = Buffer.alloc(HEADER_SIZE + fieldsSize);
  prefix.writeInt32LE(prefix.length + body.length, 0);
  prefix.writeInt32LE(requestId, 4);
  prefix.writeInt32LE(responseTo, 8);
  prefix.writeInt32LE(opCode, 12);
  writeFields(prefix);
  return Buffer.concat([prefix, body]);
}
