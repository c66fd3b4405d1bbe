import type { PoolClient } from 'pg';

/** A pooled session lent to one table read. */
export interface ClientLease {
  readonly client: PoolClient;
  /** Sends a CancelRequest for whatever the session runs now. Never rejects. */
  cancel(): Promise<void>;
  /** Returns the session to the pool, or drops it when `healthy` is false. Idempotent. */
  release(healthy: boolean): void;
  /** How long to wait for the server to end a statement after a cancel before dropping the session. */
  readonly settleMs: number;
}

/** Settles with `promise`, or with `false` once `ms` have passed (the caller then drops the session). */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true, () => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
