import type { Readable, Writable } from 'node:stream';

/** The process streams, injected so that tests run the CLI in-process. */
export interface CliIo {
  readonly stdout: Writable & { readonly isTTY?: boolean };
  readonly stderr: Writable;
  readonly stdin: Readable;
}
