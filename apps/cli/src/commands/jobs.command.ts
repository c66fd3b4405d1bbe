import { parseCommandArgs, stringOption, flag } from '../args';
import { EXIT, failure, usageError, type ExitCode } from '../cli-error';
import type { CliConfig } from '../config/cli.config';
import type { CliIo } from '../io';

export const JOBS_LIST_HELP = `Usage: fetcher jobs list [--status S[,S…]] [--from T] [--to T] [--config-name NAME]
                         [--product NAME] [--limit N] [--cursor C] [--all] [--json] [--manager-url URL]

Lists jobs from a Manager (GET /v1/fetcher), newest first: one line per job with its id, status,
creation time and source, and for a completed incremental job its cursors (compact JSON, per
datasource and table the position to pass as the next request's "after"). The cursor of the next
page, when there is one, goes to standard error.

Options:
  --status S          pending, processing, completed, failed, canceled; comma-separated
  --from T, --to T    creation range: RFC 3339 date-time or date; from inclusive, to exclusive
  --config-name NAME  only jobs that map this datasource
  --product NAME      only this product's jobs (sent as X-Product-Name)
  --limit N           jobs per page, 1 to 100 (default 20)
  --cursor C          continue after a previous page
  --all               follow the cursors to the last page
  --json              print the Manager's JSON pages, one per line
  --manager-url URL   the Manager (default FETCHER_MANAGER_URL, else http://localhost:4006)
  -h, --help          show this help

FETCHER_MANAGER_TOKEN, when set, is sent as a bearer token.
`;

export const JOBS_CANCEL_HELP = `Usage: fetcher jobs cancel JOB_ID [--json] [--manager-url URL]

Cancels a job (POST /v1/fetcher/{id}/cancel): a pending job is canceled at once; a processing one is
asked to stop, and its Worker writes canceled. Prints the job's id and status (or the JSON).
A job that already completed or failed is refused by the Manager (exit 3).

Options:
  --json              print the Manager's JSON answer
  --manager-url URL   the Manager (default FETCHER_MANAGER_URL, else http://localhost:4006)
  -h, --help          show this help
`;

const LIST_OPTIONS = {
  status: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  'config-name': { type: 'string' },
  product: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  all: { type: 'boolean' },
  json: { type: 'boolean' },
  'manager-url': { type: 'string' },
} as const;

const CANCEL_OPTIONS = { json: { type: 'boolean' }, 'manager-url': { type: 'string' } } as const;

/** Pages followed by `--all` at most: a runaway loop on a Manager that keeps answering a cursor is cut. */
const MAX_PAGES = 10_000;

interface JobView {
  readonly id: string;
  readonly status: string;
  readonly createdAt: string;
  readonly metadata?: { readonly source?: unknown };
  readonly cancelRequestedAt?: string;
  /** A completed incremental job's positions: datasource -> table -> {value, key} (or null). */
  readonly cursors?: Readonly<Record<string, unknown>>;
}
interface Page {
  readonly items: readonly JobView[];
  readonly nextCursor?: string;
}

export async function jobsList(args: readonly string[], config: () => CliConfig, io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs(args, LIST_OPTIONS, 'jobs list');
  if (parsed.positionals.length > 0) throw usageError(`jobs list: unexpected argument ${parsed.positionals[0]}`);
  const query = new URLSearchParams();
  for (const [option, parameter] of [['status', 'status'], ['from', 'createdFrom'], ['to', 'createdTo'], ['config-name', 'configName'], ['limit', 'limit']] as const) {
    const value = stringOption(parsed, option);
    if (value !== undefined) query.set(parameter, value);
  }
  const product = stringOption(parsed, 'product');
  let cursor = stringOption(parsed, 'cursor');
  const base = managerUrl(stringOption(parsed, 'manager-url'), config);
  for (let page = 0; page < MAX_PAGES; page++) {
    if (cursor !== undefined) query.set('cursor', cursor);
    const { body } = await call(io, config, 'GET', `${base}/v1/fetcher?${query.toString()}`, product);
    const result = body as Page;
    if (flag(parsed, 'json')) io.stdout.write(`${JSON.stringify(result)}\n`);
    else for (const job of result.items) io.stdout.write(`${line(job)}\n`);
    cursor = result.nextCursor;
    if (cursor === undefined) return EXIT.ok;
    if (!flag(parsed, 'all')) {
      if (!flag(parsed, 'json')) io.stderr.write(`next page: --cursor ${cursor}\n`);
      return EXIT.ok;
    }
  }
  throw failure(`jobs list: stopped after ${MAX_PAGES} pages`);
}

export async function jobsCancel(args: readonly string[], config: () => CliConfig, io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs(args, CANCEL_OPTIONS, 'jobs cancel');
  const [jobId, extra] = parsed.positionals;
  if (jobId === undefined) throw usageError('jobs cancel: give the JOB_ID');
  if (extra !== undefined) throw usageError(`jobs cancel: unexpected argument ${extra}`);
  const base = managerUrl(stringOption(parsed, 'manager-url'), config);
  const { status, body } = await call(io, config, 'POST', `${base}/v1/fetcher/${encodeURIComponent(jobId)}/cancel`);
  const job = body as JobView;
  if (flag(parsed, 'json')) io.stdout.write(`${JSON.stringify(job)}\n`);
  else io.stdout.write(`${job.id} ${status === 202 ? 'stopping (cancel requested; the Worker writes canceled)' : job.status}\n`);
  return EXIT.ok;
}

function line(job: JobView): string {
  const source = typeof job.metadata?.source === 'string' ? job.metadata.source : '-';
  const fields = [job.id, job.status.padEnd(10), job.createdAt, source];
  // Compact JSON: copied as it is into the next request's incremental `after`, per table.
  if (typeof job.cursors === 'object' && job.cursors !== null) fields.push(`cursors=${JSON.stringify(job.cursors)}`);
  return fields.join('  ');
}

function managerUrl(option: string | undefined, config: () => CliConfig): string {
  const text = option ?? config().managerUrl;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError('--manager-url must be an http(s) URL');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '') {
    throw usageError('--manager-url must be an http(s) URL without credentials');
  }
  return url.toString().replace(/\/+$/, '');
}

/** One request; a refusal becomes one line with the Manager's code and message (exit 3). */
async function call(io: CliIo, config: () => CliConfig, method: 'GET' | 'POST', url: string, product?: string): Promise<{ status: number; body: unknown }> {
  const token = config().managerToken;
  const headers: Record<string, string> = {
    accept: 'application/json',
    ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
    ...(product !== undefined ? { 'x-product-name': product } : {}),
  };
  let response: Response;
  try {
    response = await (io.fetch ?? fetch)(url, { method, headers });
  } catch {
    // The error text can quote the URL at length; the variable names where it came from.
    throw failure('cannot reach the Manager (check --manager-url or FETCHER_MANAGER_URL)');
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? {} : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (response.ok && typeof body === 'object' && body !== null) return { status: response.status, body };
  const error = (typeof body === 'object' && body !== null ? body : {}) as { code?: unknown; message?: unknown };
  const detail = typeof error.code === 'string' ? `${error.code}: ${typeof error.message === 'string' ? error.message : ''}` : text.slice(0, 200).trim();
  throw failure(`the Manager answered ${response.status}${detail !== '' ? ` ${detail}` : ''}`);
}
