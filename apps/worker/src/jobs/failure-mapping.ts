import { EngineError } from '@fetcher/engine';
import { WorkerError } from '../errors/worker-error';
import { HANDLED, type JobOutcome, refused } from './delivery-outcome';
import { failureText, JobFailure, sanitiseErrorText } from './error-text';
import { MalformedMessageError } from './job-message';

/** How a run's error is recorded: the job's failure text, and what becomes of its delivery once the job is failed. */
export interface MappedFailure {
  readonly text: string;
  readonly outcome: JobOutcome;
}

/** `secrets`: the values of the credentials the run used, never to be repeated in the stored text. */
export function mapFailure(error: unknown, secrets: readonly string[] = []): MappedFailure {
  return { text: sanitiseErrorText(failureText(error), secrets), outcome: failureOutcome(error) };
}

/**
 * Engine and infrastructure errors refuse the delivery (it goes to the DLQ, to be looked at); a
 * failure no delivery can fix (a bad request, a connection of another product) is handled.
 */
export function failureOutcome(error: unknown): JobOutcome {
  if (error instanceof EngineError) return refused(`engine_${error.category}`);
  if (error instanceof WorkerError) return error.retryable ? refused(error.code) : HANDLED;
  if (error instanceof JobFailure) return error.retryable ? refused('job_failure') : HANDLED;
  if (error instanceof MalformedMessageError) return HANDLED; // the stored request is invalid: no delivery can fix it
  return refused('internal');
}
