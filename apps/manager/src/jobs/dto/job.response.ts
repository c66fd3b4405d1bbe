import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { Job } from '../job';

/** Keys the Worker keeps in `metadata` for its own event bookkeeping; clients never see them. */
const HIDDEN_METADATA_KEYS = new Set(['terminalEventPending', 'terminalEventStatus', 'terminalEventPayload']);

export class JobProgressResponse {
  @ApiProperty({ description: 'Tables the Worker has finished extracting' })
  tablesDone!: number;
  @ApiProperty({ description: 'Rows extracted so far' })
  rowsSoFar!: number;
}

export class JobResultStatsResponse {
  @ApiProperty({ description: 'Size of the JSON document before encryption, in bytes (as `result.sizeBytes` of the job.completed event)' })
  sizeBytes!: number;
  @ApiProperty({ description: 'Rows in the document, all datasources together' })
  rowCount!: number;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, description: 'Rows per datasource (config name)', example: { 'pg-main': 30 } })
  rowCounts!: Record<string, number>;
}

export class JobResponse {
  @ApiProperty({ format: 'uuid' })
  id!: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Request metadata, plus `error` (a string) on failure' })
  metadata?: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } } })
  mappedFields!: Job['mappedFields'];
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  filters?: Job['filters'];
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'The request\'s incremental choice (datasource -> table -> {cursorField, tieBreaker?, after?, limit?, nulls?}), as sent' })
  incremental?: Job['incremental'];
  @ApiProperty({ enum: ['pending', 'processing', 'completed', 'failed', 'canceled'] })
  status!: Job['status'];
  @ApiPropertyOptional()
  resultPath?: string;
  @ApiPropertyOptional()
  resultHmac?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'object', additionalProperties: { type: 'object', nullable: true, properties: { value: {}, key: {} } } },
    description:
      "Completed incremental jobs only: datasource -> table -> the last {value, key} position reached, to copy verbatim into the next request's `after`. " +
      'A table without new rows keeps the `after` it was given; null when it had neither rows nor an `after`',
    example: { 'pg-main': { transactions: { value: '2026-03-01T10:00:00.123456Z', key: '4711' } } },
  })
  cursors?: Job['cursors'];
  @ApiPropertyOptional({ type: JobResultStatsResponse, description: 'Completed jobs: the result\'s size and row counts, recorded by the Worker (absent for jobs completed before it recorded them); older clients can ignore it' })
  resultStats?: JobResultStatsResponse;
  @ApiPropertyOptional({ description: 'Lower-case hex SHA-256 of the canonical request' })
  requestHash?: string;
  @ApiProperty({ format: 'date-time' })
  createdAt!: string;
  @ApiPropertyOptional({ format: 'date-time' })
  completedAt?: string;
  @ApiPropertyOptional({ type: JobProgressResponse, description: 'Reported by the Worker while it runs the job; older clients can ignore it' })
  progress?: JobProgressResponse;
  @ApiPropertyOptional({ format: 'date-time', description: 'When a cancel was asked while the job was processing (job control)' })
  cancelRequestedAt?: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'The failed or canceled job this one retries' })
  retryOf?: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'The job that retried this one' })
  retriedBy?: string;
}

/**
 * The job as clients see it: no dispatch or lease bookkeeping, no Worker-internal metadata, empty parts
 * left out. Built field by field, in the order clients see: clients poll this in loops.
 */
export function jobResponse(job: Job): JobResponse {
  const response = { id: job.id } as JobResponse;
  let metadata: Record<string, unknown> | undefined;
  for (const key of Object.keys(job.metadata)) {
    if (!HIDDEN_METADATA_KEYS.has(key)) (metadata ??= {})[key] = job.metadata[key];
  }
  if (metadata) response.metadata = metadata;
  response.mappedFields = job.mappedFields;
  if (job.filters && Object.keys(job.filters).length > 0) response.filters = job.filters;
  if (job.incremental) response.incremental = job.incremental;
  response.status = job.status;
  if (job.resultPath) response.resultPath = job.resultPath;
  if (job.resultHmac) response.resultHmac = job.resultHmac;
  if (job.cursors) response.cursors = job.cursors;
  if (job.resultStats) response.resultStats = { sizeBytes: job.resultStats.sizeBytes, rowCount: job.resultStats.rowCount, rowCounts: { ...job.resultStats.rowCounts } };
  if (job.requestHash) response.requestHash = job.requestHash;
  response.createdAt = job.createdAt.toISOString();
  if (job.completedAt) response.completedAt = job.completedAt.toISOString();
  if (job.progress) response.progress = { tablesDone: job.progress.tablesDone, rowsSoFar: job.progress.rowsSoFar };
  if (job.cancelRequestedAt) response.cancelRequestedAt = job.cancelRequestedAt.toISOString();
  if (job.retryOf) response.retryOf = job.retryOf;
  if (job.retriedBy) response.retriedBy = job.retriedBy;
  return response;
}

export class CreateJobResponse {
  @ApiProperty({ format: 'uuid' })
  jobId!: string;
  @ApiProperty({ enum: ['pending', 'processing', 'completed', 'failed', 'canceled'] })
  status!: Job['status'];
  @ApiProperty({ format: 'date-time' })
  createdAt!: string;
  @ApiProperty({ example: 'Job created and queued for processing' })
  message!: string;
}

export function createJobResponse(job: Job, duplicate: boolean): CreateJobResponse {
  return {
    jobId: job.id,
    status: job.status,
    createdAt: job.createdAt.toISOString(),
    message: duplicate ? 'Duplicate request detected - returning existing job' : 'Job created and queued for processing',
  };
}
