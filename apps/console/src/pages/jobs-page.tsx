import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../api/client';
import { type Job, type JobPage, JOB_STATUSES } from '../api/types';
import { datasourcesOf, failureReason, formatTime, shortId } from '../format';
import { href } from '../route';
import { JobDetails } from './job-details';

/** While a job on the page is pending or processing, the page is read again this often. */
const POLL_MS = 1500;

interface Query {
  readonly status: string;
  readonly configName: string;
  readonly product: string;
  readonly limit: string;
}

function listPath(query: Query, cursor: string | undefined): string {
  const params = new URLSearchParams({ limit: query.limit });
  if (query.status) params.set('status', query.status);
  if (query.configName.trim()) params.set('configName', query.configName.trim());
  if (cursor) params.set('cursor', cursor);
  return `/v1/fetcher?${params.toString()}`;
}

export function JobsPage({ params }: { params: URLSearchParams }) {
  const [draft, setDraft] = useState<Query>({ status: params.get('status') ?? '', configName: '', product: '', limit: '20' });
  const [query, setQuery] = useState<Query>(draft);
  // Cursors of the pages before the current one, so "Previous" can go back (the API pages forward only).
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<JobPage | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const [open, setOpen] = useState<string | undefined>(params.get('job') ?? undefined);
  const cursor = cursors[cursors.length - 1];

  const load = useCallback(async () => {
    try {
      const headers: Record<string, string> = query.product.trim() ? { 'X-Product-Name': query.product.trim() } : {};
      setPage(await api<JobPage>(listPath(query, cursor), { headers }));
      setError(undefined);
    } catch (e) {
      setError(describeError(e));
    }
  }, [query, cursor]);

  useEffect(() => {
    void load();
  }, [load]);

  const running = page?.items.some((job) => job.status === 'pending' || job.status === 'processing') ?? false;
  useEffect(() => {
    if (!running) return undefined;
    const timer = window.setInterval(() => void load(), POLL_MS);
    return () => window.clearInterval(timer);
  }, [running, load]);

  const act = async (job: Job, action: 'cancel' | 'retry') => {
    try {
      const answer = await api<Job>(`/v1/fetcher/${job.id}/${action}`, { method: 'POST' });
      setNotice(action === 'cancel' ? `Job ${shortId(job.id)}: ${answer.status === 'canceled' ? 'canceled' : 'cancel requested, the Worker is stopping it'}.` : `Job ${shortId(job.id)} retried as ${shortId(answer.id)}.`);
    } catch (e) {
      setNotice(`Could not ${action} job ${shortId(job.id)}: ${describeError(e)}`);
    }
    await load();
  };

  return (
    <section aria-labelledby="jobs-title">
      <div class="heading">
        <h1 id="jobs-title">Jobs</h1>
        <a class="button" href={href('new-extraction')}>
          New extraction
        </a>
      </div>
      <form
        class="filters"
        aria-label="Job filters"
        onSubmit={(event) => {
          event.preventDefault();
          setQuery(draft);
          setCursors([undefined]);
        }}
      >
        <div class="field">
          <label for="job-status">Status</label>
          <select id="job-status" value={draft.status} onChange={(e) => setDraft({ ...draft, status: e.currentTarget.value })}>
            <option value="">Any</option>
            {JOB_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="job-datasource">Datasource</label>
          <input id="job-datasource" value={draft.configName} onInput={(e) => setDraft({ ...draft, configName: e.currentTarget.value })} />
        </div>
        <div class="field">
          <label for="job-product">Product</label>
          <input id="job-product" value={draft.product} onInput={(e) => setDraft({ ...draft, product: e.currentTarget.value })} />
        </div>
        <div class="field">
          <label for="job-limit">Per page</label>
          <select id="job-limit" value={draft.limit} onChange={(e) => setDraft({ ...draft, limit: e.currentTarget.value })}>
            {['10', '20', '50', '100'].map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Apply</button>
      </form>
      <p role="status" class="notice">
        {notice}
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {page && page.items.length === 0 && <p>No jobs match.</p>}
      {page && page.items.length > 0 && (
        <div class="table-wrap" role="region" aria-label="Job list" tabIndex={0}>
          <table class="jobs">
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">Status</th>
                <th scope="col">Datasources</th>
                <th scope="col">Created</th>
                <th scope="col">Progress</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((job) => (
                <JobRow key={job.id} job={job} open={open === job.id} onToggle={() => setOpen(open === job.id ? undefined : job.id)} onAction={(a) => void act(job, a)} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav class="pager" aria-label="Job pages">
        <button type="button" disabled={cursors.length <= 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          Previous page
        </button>
        <span>Page {cursors.length}</span>
        <button type="button" disabled={!page?.nextCursor} onClick={() => page?.nextCursor && setCursors([...cursors, page.nextCursor])}>
          Next page
        </button>
      </nav>
      {running && <p class="hint">Refreshing every {POLL_MS / 1000} s while jobs run.</p>}
    </section>
  );
}

function JobRow({ job, open, onToggle, onAction }: { job: Job; open: boolean; onToggle: () => void; onAction: (action: 'cancel' | 'retry') => void }) {
  const active = job.status === 'pending' || job.status === 'processing';
  const reason = failureReason(job.metadata);
  return (
    <>
      <tr data-job={job.id}>
        <td>
          <button type="button" class="link" aria-expanded={open} aria-controls={`job-${job.id}`} onClick={onToggle}>
            <code>{shortId(job.id)}</code>
            <span class="visually-hidden"> details</span>
          </button>
        </td>
        <td>
          <span class={`badge ${job.status}`}>{job.status}</span>
          {job.cancelRequestedAt && job.status === 'processing' && <span class="hint"> stopping…</span>}
          {reason && <div class="reason">{reason}</div>}
        </td>
        <td>{datasourcesOf(job.mappedFields)}</td>
        <td>{formatTime(job.createdAt)}</td>
        <td>{job.progress ? `${job.progress.tablesDone} tables, ${job.progress.rowsSoFar.toLocaleString('en')} rows` : active ? 'waiting' : '—'}</td>
        <td class="actions">
          {active && (
            <button type="button" onClick={() => onAction('cancel')} aria-label={`Cancel job ${shortId(job.id)}`}>
              Cancel
            </button>
          )}
          {(job.status === 'failed' || job.status === 'canceled') && !job.retriedBy && (
            <button type="button" onClick={() => onAction('retry')} aria-label={`Retry job ${shortId(job.id)}`}>
              Retry
            </button>
          )}
        </td>
      </tr>
      {open && (
        <tr id={`job-${job.id}`} class="details-row">
          <td colSpan={6}>
            <JobDetails job={job} />
          </td>
        </tr>
      )}
    </>
  );
}
