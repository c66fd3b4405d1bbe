import type { BsonDocument } from '../bson/bson-values';

/** MongoDB's structured error codes that this server answers with. */
export const ErrorCode = {
  InternalError: 1,
  BadValue: 2,
  FailedToParse: 9,
  TypeMismatch: 14,
  IllegalOperation: 20,
  InvalidLength: 16,
  NamespaceNotFound: 26,
  IndexNotFound: 27,
  PathNotViable: 28,
  ConflictingUpdateOperators: 40,
  CursorNotFound: 43,
  NamespaceExists: 48,
  CommandNotFound: 59,
  ImmutableField: 66,
  InvalidOptions: 72,
  InvalidNamespace: 73,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  CommandNotSupported: 115,
  NotImplemented: 238,
  DuplicateKey: 11000,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;

/** A command failure answered as `{ok: 0, errmsg, code, codeName}` (or a write error entry). */
export class CommandError extends Error {
  readonly code: number;

  constructor(readonly codeName: ErrorCodeName, message: string, readonly extra: BsonDocument = {}) {
    super(message);
    this.name = 'CommandError';
    this.code = ErrorCode[codeName];
  }

  toReply(): BsonDocument {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.extra };
  }

  /** The shape of one entry in an insert/update/delete `writeErrors` array. */
  toWriteError(index: number): BsonDocument {
    return { index, code: this.code, codeName: this.codeName, errmsg: this.message, ...this.extra };
  }
}
