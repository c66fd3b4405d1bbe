import type { Readable } from 'node:stream';

/** Where one stored result is read from. `open` fails with a `CliError` that names the place, never a secret. */
export interface ResultSource {
  /** For messages: a path, or `s3://bucket/key`. */
  readonly description: string;
  open(): Promise<Readable>;
}
