import { Errors } from '../../errors/catalogue';
import { JOB_STATUSES, type JobStatus } from '../job';
import type { JobListQuery } from '../../ports/job-repository.port';
import { decodeJobCursor } from './job-cursor';

export const JOB_LIST_DEFAULT_LIMIT = 20;
export const JOB_LIST_MAX_LIMIT = 100;

/**
 * The job list's query, checked: what `GET /v1/fetcher` filters and pages on. The repository's
 * query without the product, which comes from the `X-Product-Name` header, not the query string.
 */
export type ListJobsRequest = Omit<JobListQuery, 'source'>;

const CONFIG_NAME = /^[A-Za-z0-9_-]{1,100}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;
const LIMIT = /^[1-9]\d{0,5}$/;

/**
 * Parses the query string (as Fastify hands it: a repeated parameter is an array). Unknown
 * parameters are ignored, as on the connection list; a known one that appears twice where one
 * value is expected is refused rather than guessed at.
 */
export function parseListJobsRequest(query: Readonly<Record<string, unknown>>): ListJobsRequest {
  const statuses = parseStatuses(query.status);
  const createdFrom = parseInstant(single(query, 'createdFrom'), 'createdFrom');
  const createdTo = parseInstant(single(query, 'createdTo'), 'createdTo');
  if (createdFrom && createdTo && createdFrom.getTime() >= createdTo.getTime()) {
    throw Errors.invalidJobListParameter('createdTo', 'it must be later than createdFrom');
  }
  const configName = single(query, 'configName');
  if (configName !== undefined && !CONFIG_NAME.test(configName)) {
    throw Errors.invalidJobListParameter('configName', 'a connection name is 1 to 100 letters, digits, underscores and hyphens');
  }
  const cursor = single(query, 'cursor');
  const after = cursor === undefined ? undefined : decodeJobCursor(cursor);
  if (cursor !== undefined && after === undefined) throw Errors.invalidJobListCursor();
  return {
    ...(statuses ? { statuses } : {}),
    ...(createdFrom ? { createdFrom } : {}),
    ...(createdTo ? { createdTo } : {}),
    ...(configName !== undefined ? { configName } : {}),
    ...(after ? { after } : {}),
    limit: parseLimit(single(query, 'limit')),
  };
}

function single(query: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw Errors.invalidJobListParameter(name, 'give it once');
  return value;
}

/** Repeatable and comma-separated: `status=failed&status=canceled` is `status=failed,canceled`. */
function parseStatuses(value: unknown): JobStatus[] | undefined {
  if (value === undefined) return undefined;
  const values = (Array.isArray(value) ? value : [value]).flatMap((v) => (typeof v === 'string' ? v.split(',') : [undefined]));
  const statuses = new Set<JobStatus>();
  for (const v of values) {
    const status = JOB_STATUSES.find((s) => s === v?.trim().toLowerCase());
    if (status === undefined) throw Errors.invalidJobListParameter('status', `use ${JOB_STATUSES.join(', ')}`);
    statuses.add(status);
  }
  return [...statuses];
}

/** An RFC 3339 date-time with its offset, or a calendar date (its UTC midnight). */
function parseInstant(value: string | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const at = DATE.test(text) ? new Date(`${text}T00:00:00Z`) : DATE_TIME.test(text) ? new Date(text) : undefined;
  // Date rolls 2026-02-31 over to March: a calendar date must read back as itself.
  if (at === undefined || Number.isNaN(at.getTime()) || !sameCalendarDate(text)) {
    throw Errors.invalidJobListParameter(name, "use an RFC 3339 date-time such as '2026-01-31T12:00:00Z', or a date such as '2026-01-31'");
  }
  return at;
}

function sameCalendarDate(text: string): boolean {
  const day = text.slice(0, 10);
  const midnight = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(midnight.getTime()) && midnight.toISOString().slice(0, 10) === day;
}

function parseLimit(value: string | undefined): number {
  if (value === undefined) return JOB_LIST_DEFAULT_LIMIT;
  if (!LIMIT.test(value.trim())) throw Errors.invalidJobListParameter('limit', `use a whole number from 1 to ${JOB_LIST_MAX_LIMIT}`);
  const limit = Number(value.trim());
  if (limit > JOB_LIST_MAX_LIMIT) throw Errors.paginationLimitExceeded(JOB_LIST_MAX_LIMIT);
  return limit;
}
