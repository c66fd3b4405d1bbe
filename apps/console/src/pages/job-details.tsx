import type { Job } from '../api/types';
import { failureReason, formatTime } from '../format';
import { href } from '../route';
import { CopyText } from './copy-text';

/** Everything known about one job: its request, its outcome and how to read the result. */
export function JobDetails({ job }: { job: Job }) {
  const reason = failureReason(job.metadata);
  const command = `npx fetcher result decrypt ${job.id}`;
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
        {job.progress && (
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
      {job.status === 'completed' && job.resultPath && (
        <div class="result">
          <p>The result is stored encrypted. Decrypt it and check its HMAC on the Worker's host with:</p>
          <CopyText label="Decrypt command" text={command} />
        </div>
      )}
      <details>
        <summary>Request</summary>
        <pre class="json">{JSON.stringify({ mappedFields: job.mappedFields, ...(job.filters ? { filters: job.filters } : {}), metadata: job.metadata }, null, 2)}</pre>
      </details>
    </div>
  );
}
