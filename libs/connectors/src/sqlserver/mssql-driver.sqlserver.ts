/**
 * The slice of mssql the connector uses, behind an interface so unit tests can stand in for a
 * server that does not exist on the development machines.
 */
import type { Readable } from 'node:stream';
import { ConnectionPool, Request, type ISqlType, type config as MssqlConfig } from 'mssql';

export interface MssqlRequestLike {
  input(name: string, type: ISqlType, value: unknown): unknown;
  /** Buffered mode: the first recordset. Stream mode: errors arrive on the stream instead. */
  query(sql: string): Promise<{ readonly recordset?: readonly unknown[] }>;
  toReadableStream(options?: { highWaterMark?: number }): Readable;
  cancel(): void;
}

export interface MssqlPoolLike {
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  on(event: 'error', listener: (error: unknown) => void): unknown;
}

export interface SqlServerDriver {
  createPool(config: MssqlConfig): MssqlPoolLike;
  /** `requestTimeoutMs` overrides the pool's request timeout for this request only. */
  createRequest(pool: MssqlPoolLike, requestTimeoutMs?: number): MssqlRequestLike;
}

// mssql 12 takes per-request overrides as a second constructor argument; its typings predate that.
type RequestWithOverrides = new (pool: ConnectionPool, overrides: { requestTimeout?: number }) => Request;

export const MSSQL_DRIVER: SqlServerDriver = {
  createPool: (config) => new ConnectionPool(config),
  createRequest: (pool, requestTimeoutMs) =>
    new (Request as unknown as RequestWithOverrides)(
      pool as ConnectionPool,
      requestTimeoutMs === undefined ? {} : { requestTimeout: requestTimeoutMs },
    ),
};
