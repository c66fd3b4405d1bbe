import { Long } from 'bson';
import { bsonTypeTag, numericKind, toNumber, type BsonDocument } from '../bson/bson-values';
import { numberArg, requiredArray } from './command-args';
import type { CommandContext, CommandTable } from './command-context';
import { CommandError } from './command-error';

function cursorId(value: unknown): Long {
  if (bsonTypeTag(value) === 'Long') return value as Long;
  if (numericKind(value) !== undefined) return Long.fromNumber(toNumber(value));
  throw new CommandError('TypeMismatch', 'cursor id must be a 64-bit integer');
}

function getMore(command: BsonDocument, context: CommandContext): BsonDocument {
  const collection = command.collection;
  if (typeof collection !== 'string') throw new CommandError('TypeMismatch', "'collection' must be a string");
  const batchSize = numberArg(command, 'batchSize');
  return context.cursors.getMore(cursorId(command.getMore), `${context.database}.${collection}`, batchSize || undefined);
}

function killCursors(command: BsonDocument, context: CommandContext): BsonDocument {
  const killed: Long[] = [];
  const notFound: Long[] = [];
  for (const value of requiredArray(command, 'cursors')) {
    const id = cursorId(value);
    (context.cursors.kill(id) ? killed : notFound).push(id);
  }
  return { cursorsKilled: killed, cursorsNotFound: notFound, cursorsAlive: [], cursorsUnknown: [], ok: 1 };
}

export const cursorCommands: CommandTable = { getMore, killCursors };
