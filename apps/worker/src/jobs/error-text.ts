import { EngineError } from '@fetcher/engine';
import { WorkerError } from '../errors/worker-error';
import { MalformedMessageError } from './job-message';
import { resultSinkErrorOf } from './result/result-sink-error';

/** Removes addresses and URLs (which may hold credentials) from an error text, then every known secret. */
export function sanitiseErrorText(text: string, secrets: readonly string[] = []): string {
  let out = text
    .replace(/\w+:\/\/[^\s]+/g, '[redacted]')
    .replace(/\b(dial (?:tcp|udp)|read tcp|write tcp|lookup)\s+\S+/g, '$1 [redacted]')
    .replace(/Addr:\s+\S+/g, 'Addr: [redacted]')
    .replace(/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g, '[redacted]');
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join('[REDACTED]');
  return out;
}

/** The text stored for a failed job. Only our own fixed texts are used; unknown errors are not quoted. */
export function failureText(error: unknown): string {
  if (error instanceof EngineError) {
    // The engine says only that the result could not be stored; the sink's own error says why.
    const sink = resultSinkErrorOf(error.cause);
    return `engine extraction: ${error.toString()}${sink ? `: ${sink.message}` : ''}`;
  }
  if (error instanceof WorkerError || error instanceof MalformedMessageError) return error.render();
  if (error instanceof JobFailure) return error.message;
  return 'process failed: internal error';
}

/** A failure whose text is fixed by the Worker (not a business code). */
export class JobFailure extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'JobFailure';
  }
}
