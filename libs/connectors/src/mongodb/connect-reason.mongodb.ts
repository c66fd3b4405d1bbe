import type { ConnectReason } from '@fetcher/engine';
import { MongoNetworkTimeoutError, MongoServerSelectionError } from 'mongodb';
import { connectReason } from '../common/connect-reason';

/**
 * MongoDB server codes for a refused login: 18 AuthenticationFailed, 13 Unauthorized (a user
 * without rights on the database). Network failures are MongoNetworkError / server-selection
 * errors whose socket error (ECONNREFUSED, ENOTFOUND, TLS) is classified through the chain.
 */
const BY_CODE: ReadonlyMap<number, ConnectReason> = new Map([
  [18, 'authentication'],
  [13, 'authentication'],
]);

function byCode(error: object): ConnectReason | undefined {
  if (error instanceof MongoNetworkTimeoutError) return 'timeout';
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' && BY_CODE.has(code) ? BY_CODE.get(code) : undefined;
}

/** A server selection that ran out of time without any server's error telling more is a `timeout`. */
export function mongoConnectReason(error: unknown): ConnectReason | undefined {
  return connectReason(error, byCode) ?? (error instanceof MongoServerSelectionError ? 'timeout' : undefined);
}
