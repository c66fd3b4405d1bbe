import { isPlainDocument, type BsonDocument } from '../bson/bson-values';
import { CommandError } from './command-error';

const TRANSACTION_FIELDS = ['txnNumber', 'startTransaction', 'autocommit'] as const;
/** Arrays of statements or specs whose entries may carry a collation. */
const NESTED_SPECS = ['updates', 'deletes', 'indexes'] as const;
const VALIDATION_FIELDS = ['validator', 'validationLevel', 'validationAction'] as const;

/**
 * Refuses, in MongoDB's error shape, every feature this server would otherwise accept and ignore:
 * transactions (a standalone MongoDB answers exactly this IllegalOperation), collations, validators
 * and TTL indexes. Silently ignoring them would let code rely on behaviour that is not there (an
 * aborted transaction's writes would stay). `lsid`, the implicit session every command carries,
 * is accepted: sessions without transactions change nothing here.
 */
export function refuseUnsupported(name: string, command: BsonDocument): void {
  if (name === 'commitTransaction' || name === 'abortTransaction' || TRANSACTION_FIELDS.some((field) => command[field] !== undefined)) {
    throw new CommandError('IllegalOperation', 'Transaction numbers are only allowed on a replica set member or mongos');
  }
  if (command.collation !== undefined || nestedSpecs(command).some((spec) => spec.collation !== undefined)) {
    throw new CommandError('NotImplemented', 'collation is not supported by the mongo test server');
  }
  if (name === 'create' && VALIDATION_FIELDS.some((field) => command[field] !== undefined)) {
    throw new CommandError('NotImplemented', 'document validation is not supported by the mongo test server');
  }
  if (name === 'createIndexes' && nestedSpecs(command).some((spec) => spec.expireAfterSeconds !== undefined)) {
    throw new CommandError('NotImplemented', 'TTL indexes (expireAfterSeconds) are not supported by the mongo test server');
  }
}

function nestedSpecs(command: BsonDocument): BsonDocument[] {
  const specs: BsonDocument[] = [];
  for (const field of NESTED_SPECS) {
    const list = command[field];
    if (Array.isArray(list)) for (const item of list) if (isPlainDocument(item)) specs.push(item);
  }
  return specs;
}
