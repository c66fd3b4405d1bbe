/** The few Manager routes the Worker benches drive: create a connection, create, read and cancel a job. */

export interface JobView {
  readonly id: string;
  readonly status: 'pending' | 'processing' | 'completed' | 'failed' | 'canceled';
  readonly metadata?: { error?: string };
}

async function send(url: string, init: RequestInit, expected: readonly number[]): Promise<unknown> {
  const response = await fetch(url, init);
  const text = await response.text();
  if (!expected.includes(response.status)) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${text}`);
  return JSON.parse(text) as unknown;
}

const json = { 'content-type': 'application/json' };

/** `POST /v1/management/connections` for product `product`; resolves to the connection id. */
export async function createConnection(baseUrl: string, product: string, body: Record<string, unknown>): Promise<string> {
  const created = (await send(`${baseUrl}/v1/management/connections`, { method: 'POST', headers: { ...json, 'x-product-name': product }, body: JSON.stringify(body) }, [201])) as { id: string };
  return created.id;
}

/** `POST /v1/fetcher`; 202 only: the bench makes every request unique, so a duplicate is a bench bug. */
export async function createJob(baseUrl: string, body: Record<string, unknown>): Promise<string> {
  const created = (await send(`${baseUrl}/v1/fetcher`, { method: 'POST', headers: json, body: JSON.stringify(body) }, [202])) as { jobId: string };
  return created.jobId;
}

export async function readJob(baseUrl: string, jobId: string): Promise<JobView> {
  return (await send(`${baseUrl}/v1/fetcher/${jobId}`, { method: 'GET' }, [200])) as JobView;
}

/** `POST /v1/fetcher/{id}/cancel`: 202 while the Worker is asked to stop, 200 once canceled. */
export async function cancelJob(baseUrl: string, jobId: string): Promise<{ status: number; job: JobView }> {
  const response = await fetch(`${baseUrl}/v1/fetcher/${jobId}/cancel`, { method: 'POST' });
  const text = await response.text();
  if (response.status !== 200 && response.status !== 202) throw new Error(`POST cancel ${jobId}: ${response.status} ${text}`);
  return { status: response.status, job: JSON.parse(text) as JobView };
}
