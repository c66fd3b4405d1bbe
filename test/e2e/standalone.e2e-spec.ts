import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './support/app-process';
import { eventually, runFetcher, startStandaloneProcess, type StandaloneProcess } from './support/standalone-process';

/**
 * The built standalone service as a user runs it: a job on the demo database decrypted by the built
 * CLI, and durability: a SIGKILLed process restarts with every write it had acknowledged.
 */
describe('standalone mode (built service and CLI)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-e2e-standalone-'));
  let service: StandaloneProcess | undefined;
  let port: number;
  let jobId: string;

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${service!.baseUrl}${path}`, {
      method,
      headers: { ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers are read field by field in the assertions
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  beforeAll(async () => {
    port = await freePort();
    service = await startStandaloneProcess(port, dataDir);
  });

  afterAll(async () => {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('completes a job whose result the CLI decrypts and verifies from the data directory', async () => {
    const created = await call('POST', '/v1/fetcher', {
      dataRequest: { mappedFields: { demo: { 'shop.products': ['id', 'sku', 'price'] } } },
      metadata: { source: 'demo' },
    });
    expect(created.status).toBe(202);
    jobId = created.body.jobId;
    await eventually(async () => ((await call('GET', `/v1/fetcher/${jobId}`)).body.status === 'completed' ? true : undefined));

    const decrypted = runFetcher(['result', 'decrypt', jobId], { FETCHER_DATA_DIR: dataDir });
    expect({ status: decrypted.status, stderr: decrypted.stderr }).toEqual({ status: 0, stderr: '' });
    const document = JSON.parse(decrypted.stdout);
    expect(document.demo['shop.products']).toHaveLength(40);
    expect(document.demo['shop.products'][0]).toEqual({ id: 1, price: '46.91', sku: 'SKU-0001' });
    expect(runFetcher(['result', 'verify', jobId], { FETCHER_DATA_DIR: dataDir }).status).toBe(0);
  });

  it("shows the Manager's and the Worker's metrics on one /metrics, each metric once", async () => {
    // The Worker counts a job just after its terminal write, which the job poll can see first: wait for the count.
    const text = await eventually(async () => {
      const exposition = await (await fetch(`${service!.baseUrl}/metrics`)).text();
      return /^fetcher_worker_jobs_total\{status="completed"\} 1$/m.test(exposition) ? exposition : undefined;
    });
    expect(text).toMatch(/^http_requests_total\{method="POST",route="\/v1\/fetcher",status_code="202"\} 1$/m);
    expect(text).toMatch(/^fetcher_manager_\w+/m);
    const help = text.split('\n').filter((line) => line.startsWith('# HELP '));
    expect(help.filter((line) => line.startsWith('# HELP process_cpu_user_seconds_total '))).toHaveLength(1);
    expect(new Set(help).size).toBe(help.length);
  });

  it('exits 1 without printing anything when the stored bytes were altered', async () => {
    const job = (await call('GET', `/v1/fetcher/${jobId}`)).body;
    const stored = Buffer.from(readFileSync(join(dataDir, 'objects', job.resultPath), 'utf8'), 'base64');
    stored[40] = stored[40] ^ 0x01;
    const altered = join(dataDir, 'altered.b64');
    writeFileSync(altered, stored.toString('base64'));
    const result = runFetcher(['result', 'decrypt', '--file', altered, '--hmac', job.resultHmac], { FETCHER_DATA_DIR: dataDir });
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 1, stdout: '' });
    expect(result.stderr).toMatch(/failed authentication/);
  });

  it('keeps every acknowledged write through a SIGKILL, and the result stays readable', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(
          'POST',
          '/v1/management/connections',
          { configName: `durable-${i}`, type: 'POSTGRESQL', host: '127.0.0.1', port: 5432, databaseName: 'test', userName: 'postgres', password: `pw-${i}` },
          { 'X-Product-Name': 'demo' },
        ),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    await service!.kill(); // right after the last acknowledgement

    service = await startStandaloneProcess(port, dataDir);
    for (const answer of answers) {
      expect(await call('GET', `/v1/management/connections/${answer.body.id}`, undefined, { 'X-Product-Name': 'demo' })).toMatchObject({
        status: 200,
        body: { configName: answer.body.configName },
      });
    }
    expect((await call('GET', `/v1/fetcher/${jobId}`)).body).toMatchObject({ status: 'completed' });
    expect(runFetcher(['result', 'verify', jobId], { FETCHER_DATA_DIR: dataDir }).status).toBe(0);
  });
});
