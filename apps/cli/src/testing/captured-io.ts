import { PassThrough, Readable, Writable } from 'node:stream';
import type { CliIo } from '../io';

/** In-process standard streams whose output a test reads back. */
export function capturedIo(stdinText = ''): CliIo & { out(): string; err(): string } {
  const chunks = { out: [] as Buffer[], err: [] as Buffer[] };
  const sink = (into: Buffer[]) =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        into.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
        done();
      },
    });
  const stdin = stdinText === '' ? new PassThrough().end() : Readable.from([Buffer.from(stdinText)]);
  return {
    stdout: sink(chunks.out),
    stderr: sink(chunks.err),
    stdin,
    out: () => Buffer.concat(chunks.out).toString('utf8'),
    err: () => Buffer.concat(chunks.err).toString('utf8'),
  };
}
