/**
 * The slice of oracledb the connector uses, behind an interface so unit tests can stand in for a
 * server that does not exist on the development machines. Thin mode: a plain require, and never
 * initOracleClient().
 */
import type { Readable } from 'node:stream';
import oracledb from 'oracledb';

export interface OracleExecuteOptions {
  readonly outFormat?: number;
  readonly fetchArraySize?: number;
  readonly prefetchRows?: number;
  readonly fetchTypeHandler?: oracledb.ExecuteOptions['fetchTypeHandler'];
}

export interface OracleConnectionLike {
  callTimeout?: number;
  execute(sql: string, binds: readonly unknown[], options: OracleExecuteOptions): Promise<{ readonly rows?: readonly unknown[] }>;
  queryStream(sql: string, binds: readonly unknown[], options: OracleExecuteOptions): Readable;
  /** Interrupts the call in progress (thin mode sends a break to the server). */
  break(): Promise<void>;
  /** Returns the connection to the pool; `drop` ends the session instead (after an interrupted call). */
  close(options?: { drop?: boolean }): Promise<void>;
}

export interface OraclePoolLike {
  getConnection(): Promise<OracleConnectionLike>;
  /** `drainTime` 0: close now, connections in use included. */
  close(drainTime: number): Promise<void>;
}

/** Runs on each new session before the pool hands it out (oracledb's sessionCallback). */
export type OracleSessionSetup = (connection: OracleConnectionLike) => Promise<void>;

export interface OracleDriver {
  createPool(attributes: oracledb.PoolAttributes, setup: OracleSessionSetup): Promise<OraclePoolLike>;
}

export const ORACLEDB_DRIVER: OracleDriver = {
  createPool: async (attributes, setup) =>
    await oracledb.createPool({
      ...attributes,
      sessionCallback: (connection: oracledb.Connection, _tag: string, done: (error?: Error) => void) => {
        setup(connection).then(
          () => done(),
          (error: unknown) => done(error instanceof Error ? error : new Error('session setup failed')),
        );
      },
    }),
};

export const OUT_FORMAT_OBJECT = oracledb.OUT_FORMAT_OBJECT;
