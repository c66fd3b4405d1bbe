import { mongo } from 'mongoose';
import { AppError } from '../../errors/app-error';
import { Errors } from '../../errors/catalogue';

/** Duplicate key, by the server's structured code. */
export function isDuplicateKey(error: unknown): boolean {
  return error instanceof mongo.MongoServerError && error.code === 11_000;
}

/** Index options / key specs conflict on create: the index already exists. */
export function isIndexConflict(error: unknown): boolean {
  return error instanceof mongo.MongoServerError && (error.code === 85 || error.code === 86);
}

/** Drop of a missing index or collection. */
export function isNotFoundOnDrop(error: unknown): boolean {
  return error instanceof mongo.MongoServerError && (error.code === 26 || error.code === 27 || error.codeName === 'IndexNotFound' || error.codeName === 'NamespaceNotFound');
}

/**
 * The connection repository's one mapping of driver failures, by type: timeouts, network and
 * server-selection errors are 503/FET-0003, anything else 500/FET-0002. The driver's message
 * (which may quote the URI) is dropped here.
 */
export function connectionStoreError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (
    error instanceof mongo.MongoNetworkError ||
    error instanceof mongo.MongoServerSelectionError ||
    error instanceof mongo.MongoNetworkTimeoutError ||
    error instanceof mongo.MongoOperationTimeoutError ||
    error instanceof mongo.MongoTopologyClosedError ||
    error instanceof mongo.MongoNotConnectedError
  ) {
    return Errors.serviceUnavailable();
  }
  return Errors.internal();
}
