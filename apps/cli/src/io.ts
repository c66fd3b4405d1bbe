import type { Readable, Writable } from 'node:stream';

/** The process streams, injected so that tests run the CLI in-process. */
export interface CliIo {
  readonly stdout: Writable & { readonly isTTY?: boolean };
  readonly stderr: Writable;
  readonly stdin: Readable;
  /** HTTP for the commands that call a Manager; the global `fetch` when absent (tests inject one). */
  readonly fetch?: typeof fetch;
}
