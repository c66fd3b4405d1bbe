import { EngineError } from '@fetcher/engine';
import { WorkerCodes, WorkerError } from '../errors/worker-error';
import type { JobOutcome } from './delivery-outcome';
import { JobFailure } from './error-text';
import { failureOutcome, mapFailure } from './failure-mapping';
import { MalformedMessageError } from './job-message';

describe(mapFailure.name, () => {
  const table: [string, unknown, string, JobOutcome][] = [
    ['an engine error', new EngineError('unavailable', 'failed to query datasource'), 'engine extraction: engine: [unavailable] failed to query datasource', { kind: 'refused', reason: 'engine_unavailable' }],
    ['an engine error of a bad request', new EngineError('validation', 'bad'), 'engine extraction: engine: [validation] bad', { kind: 'refused', reason: 'engine_validation' }],
    ['a retryable worker error', new WorkerError(WorkerCodes.jobNotFound), 'FET-0067: job not found', { kind: 'refused', reason: 'FET-0067' }],
    ['a worker error', new WorkerError(WorkerCodes.tenantWithSlash), 'FET-0066: tenant id is not valid in an object key', { kind: 'handled' }],
    ['a retryable job failure', new JobFailure('process failed: busy', true), 'process failed: busy', { kind: 'refused', reason: 'job_failure' }],
    ['a job failure', new JobFailure('No connections found for config names', false), 'No connections found for config names', { kind: 'handled' }],
    ['an invalid stored request', new MalformedMessageError(new WorkerError(WorkerCodes.emptyMappedFields)), 'FET-0052: mappedFields cannot be empty', { kind: 'handled' }],
    ['an unknown error, not quoted', new Error('connect ECONNREFUSED 10.0.0.1:5432 password=x'), 'process failed: internal error', { kind: 'refused', reason: 'internal' }],
    ['a thrown non-error', 'boom', 'process failed: internal error', { kind: 'refused', reason: 'internal' }],
  ];

  it.each(table)('%s', (_name, error, text, outcome) => {
    expect(mapFailure(error)).toEqual({ text, outcome });
    expect(failureOutcome(error)).toEqual(outcome);
  });

  it('keeps the secrets of the run out of the text', () => {
    const error = new JobFailure('process failed: login as s3cret-pass refused', false);
    expect(mapFailure(error, ['s3cret-pass']).text).toBe('process failed: login as [REDACTED] refused');
  });
});
