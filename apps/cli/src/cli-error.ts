/** Exit statuses, as the help text documents them. */
export const EXIT = Object.freeze({
  ok: 0,
  /** The result failed authentication (AES-GCM tag) or its HMAC did not match. */
  integrity: 1,
  /** Bad arguments or configuration. */
  usage: 2,
  /** Anything else: a missing object, unreachable storage, an unreadable file. */
  failure: 3,
});

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure the CLI reports as one line on stderr with its exit status; never a stack trace. */
export class CliError extends Error {
  constructor(readonly exitCode: ExitCode, message: string) {
    super(message);
    this.name = 'CliError';
  }
}

export const usageError = (message: string): CliError => new CliError(EXIT.usage, message);
export const integrityError = (message: string): CliError => new CliError(EXIT.integrity, message);
export const failure = (message: string): CliError => new CliError(EXIT.failure, message);
