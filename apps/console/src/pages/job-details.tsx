import { useState } from 'preact/hooks';
import { describeError, download } from '../api/client';
import { useSettings } from '../api/settings';
import type { Job } from '../api/types';
import { failureReason, formatBytes, formatTime } from '../format';
import { href } from '../route';
import { CopyText } from './copy-text';

/** Everything known about one job: its request, its outcome and how to read the result. */
export function JobDetails({ job }: { job: Job }) {
  const reason = failureReason(job.metadata);
  const command = `npx fetcher result decrypt ${job.id}`;
  const settings = useSettings();
  return (
    <div class="details">
      <dl>
        <dt>Job id</dt>
        <dd>
          <code>{job.id}</code>
        </dd>
        <dt>Created</dt>
        <dd>{formatTime(job.createdAt)}</dd>
        <dt>Finished</dt>
        <dd>{formatTime(job.completedAt)}</dd>
        {job.progress && !job.resultStats && (
          <>
            <dt>Rows</dt>
            <dd>
              {job.progress.rowsSoFar.toLocaleString('en')} rows from {job.progress.tablesDone} tables
            </dd>
          </>
        )}
        {reason && (
          <>
            <dt>Failure</dt>
            <dd class="error">{reason}</dd>
          </>
        )}
        {job.cancelRequestedAt && (
          <>
            <dt>Cancel asked</dt>
            <dd>{formatTime(job.cancelRequestedAt)}</dd>
          </>
        )}
        {job.retryOf && (
          <>
            <dt>Retry of</dt>
            <dd>
              <a href={href('jobs', { job: job.retryOf })}>
                <code>{job.retryOf}</code>
              </a>
            </dd>
          </>
        )}
        {job.retriedBy && (
          <>
            <dt>Retried by</dt>
            <dd>
              <code>{job.retriedBy}</code>
            </dd>
          </>
        )}
        {job.resultPath && (
          <>
            <dt>Result path</dt>
            <dd>
              <code class="wrap">{job.resultPath}</code>
            </dd>
          </>
        )}
        {job.resultStats && (
          <>
            <dt>Result size</dt>
            <dd data-testid="result-size" title={`${job.resultStats.sizeBytes.toLocaleString('en')} bytes of JSON before encryption`}>
              {formatBytes(job.resultStats.sizeBytes)}
            </dd>
            <dt>Rows</dt>
            <dd data-testid="result-rows">
              {job.resultStats.rowCount.toLocaleString('en')} in all
              {Object.keys(job.resultStats.rowCounts).length > 1 &&
                `: ${Object.entries(job.resultStats.rowCounts)
                  .map(([name, rows]) => `${name} ${rows.toLocaleString('en')}`)
                  .join(', ')}`}
            </dd>
          </>
        )}
        {job.resultHmac && (
          <>
            <dt>Result HMAC</dt>
            <dd>
              <code class="wrap" data-testid="result-hmac">
                {job.resultHmac}
              </code>
            </dd>
          </>
        )}
      </dl>
      {job.status === 'completed' && job.resultPath && settings && (
        <div class="result">
          {settings.resultDownload ? (
            <ResultDownload job={job} />
          ) : (
            <>
              <p>The result is stored encrypted. Decrypt it and check its HMAC on the Worker's host with:</p>
              <CopyText label="Decrypt command" text={command} />
            </>
          )}
        </div>
      )}
      <details>
        <summary>Request</summary>
        <pre class="json">{JSON.stringify({ mappedFields: job.mappedFields, ...(job.filters ? { filters: job.filters } : {}), metadata: job.metadata }, null, 2)}</pre>
      </details>
    </div>
  );
}

/**
 * The Download button, when the Manager serves GET /v1/fetcher/{id}/result: the server decrypts the
 * result and checks its HMAC before sending it; the file is saved as `<jobId>.json`.
 */
function ResultDownload({ job }: { job: Job }) {
  const [state, setState] = useState<{ busy: boolean; message?: string; failed?: boolean }>({ busy: false });
  const save = async () => {
    setState({ busy: true, message: 'Downloading…' });
    try {
      const blob = await download(`/v1/fetcher/${job.id}/result`);
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = `${job.id}.json`;
      document.body.append(link);
      link.click();
      link.remove();
      // The browser has taken the file once the click is handled; the URL only has to outlive that.
      window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
      setState({ busy: false, message: `Downloaded ${blob.size.toLocaleString('en')} bytes (HMAC checked by the server)` });
    } catch (error) {
      setState({ busy: false, failed: true, message: `Download failed: ${describeError(error)}` });
    }
  };
  return (
    <>
      <p>The result is stored encrypted; the server decrypts it and checks its HMAC before sending it.</p>
      <button type="button" onClick={() => void save()} disabled={state.busy}>
        Download result
      </button>{' '}
      <span role="status" class={state.failed ? 'error' : undefined}>
        {state.message ?? ''}
      </span>
    </>
  );
}
