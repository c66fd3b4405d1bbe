import { isPlainDocument, optionalNumber, type BsonDocument } from '../bson/bson-values';
import { CommandError } from './command-error';

/** The collection named by the command's first field (`{find: "jobs", ...}`). */
export function targetCollection(command: BsonDocument): string {
  const [name, value] = Object.entries(command)[0];
  if (typeof value !== 'string' || value.length === 0) {
    throw new CommandError('InvalidNamespace', `collection name has invalid type for command ${name}`);
  }
  return value;
}

export function optionalDocument(command: BsonDocument, field: string): BsonDocument | undefined {
  const value = command[field];
  if (value === undefined || value === null) return undefined;
  if (!isPlainDocument(value)) throw new CommandError('TypeMismatch', `'${field}' must be an object`);
  return value;
}

export function requiredArray(command: BsonDocument, field: string): unknown[] {
  const value = command[field];
  if (!Array.isArray(value)) throw new CommandError('TypeMismatch', `'${field}' must be an array`);
  return value;
}

export function numberArg(command: BsonDocument, field: string): number | undefined {
  const value = command[field];
  const n = optionalNumber(value);
  if (value !== undefined && value !== null && n === undefined) {
    throw new CommandError('TypeMismatch', `'${field}' must be a number`);
  }
  return n;
}

/** `cursor: {batchSize}` of aggregate, listCollections and listIndexes. */
export function cursorBatchSize(command: BsonDocument): number | undefined {
  const cursor = optionalDocument(command, 'cursor');
  return cursor ? numberArg(cursor, 'batchSize') : undefined;
}

/** Fields every command may carry that say nothing about the command itself. Sessions and
 *  transactions are accepted and ignored: the test server runs each command on its own. */
const GENERIC_FIELDS = new Set(['lsid', 'txnNumber', 'autocommit', 'startTransaction', 'writeConcern',
  'readConcern', 'comment', 'apiVersion', 'apiStrict', 'apiDeprecationErrors', 'maxTimeMS']);

export function withoutGenericFields(command: BsonDocument): BsonDocument {
  return Object.fromEntries(Object.entries(command).filter(([key]) => !key.startsWith('$') && !GENERIC_FIELDS.has(key)));
}
