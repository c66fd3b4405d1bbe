import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { Page } from 'playwright-core';
import { freePort } from './support/app-process';
import { axeViolations, launchBrowser, screenshotDir, type TestBrowser } from './support/browser';
import { eventually, runFetcher, startStandaloneProcess, type StandaloneProcess } from './support/standalone-process';

/**
 * The operator console in a real browser (Debian's Chromium through playwright-core), served by the
 * built standalone service with authorization on: the token prompt after a 401, a connection created
 * (a validation error shown on its field first), tested, its schema browsed, an extraction with a
 * filter built from it and run to the end, and a running job canceled from the list. axe-core checks
 * every page; each page is captured at 1280 and 390 px under .artifacts/console/ for a reviewer.
 */
const suffix = randomBytes(5).toString('hex');
const database = `console_e2e_${suffix}`;
const configName = `pg-console-${suffix}`;
const product = 'console-e2e';
const ORDERS = 60;

/** An unsigned JWT: the Manager reads its claims, the authorization service below decides. */
const TOKEN = [{ alg: 'none', typ: 'JWT' }, { sub: 'operator', type: 'service' }].map((part) => Buffer.from(JSON.stringify(part)).toString('base64url')).join('.') + '.sig';

const postgres = (db: string) => ({ host: '127.0.0.1', port: 5432, user: 'postgres', database: db });
async function sql(db: string, text: string): Promise<void> {
  const client = new Client(postgres(db));
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** The authorization service: allows exactly the test's token. */
async function startAuthService(): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    if (request.url === '/health') return void response.writeHead(200).end('ok');
    const allowed = request.headers.authorization === `Bearer ${TOKEN}`;
    response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ authorized: allowed }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, server };
}

describe('operator console (real browser)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-e2e-console-'));
  const shots = screenshotDir('console');
  const axeReport: Record<string, string[]> = {};
  let auth: { url: string; server: Server };
  let service: StandaloneProcess;
  let browser: TestBrowser;
  let page: Page;
  const cspViolations: string[] = [];

  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${service.baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers are read field by field
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  /**
   * Shows a console page in `target`: by changing the fragment when the console is already loaded
   * (the token lives in the page's memory), else by loading it and answering the sign-in prompt,
   * which every page brings up on its first API call.
   */
  const open = async (target: Page, hash: string) => {
    if (target.url().startsWith(`${service.baseUrl}/console/`)) {
      await target.evaluate(`window.location.hash = ${JSON.stringify(`#/${hash}`)}`);
      return;
    }
    await target.goto(`${service.baseUrl}/console/#/${hash}`);
    await target.getByRole('heading', { name: 'Sign in' }).waitFor();
    await target.getByLabel('Bearer token').fill(TOKEN);
    await target.getByRole('button', { name: 'Sign in' }).click();
    await target.getByRole('heading', { name: 'Sign in' }).waitFor({ state: 'detached' });
  };

  /** Screenshots of the page as it is at both widths, and axe-core at each: serious and critical findings fail. */
  const capture = async (name: string) => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: join(shots, `${name}-${width}.png`), fullPage: true });
      const violations = await axeViolations(page);
      axeReport[`${name}@${width}`] = violations.map((v) => `${v.impact ?? 'n/a'} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
      expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    }
  };

  beforeAll(async () => {
    await sql('postgres', `CREATE DATABASE ${database}`);
    await sql(database, `CREATE TABLE orders (id int PRIMARY KEY, status text NOT NULL, total numeric(10,2) NOT NULL, placed_on date NOT NULL)`);
    await sql(database, `INSERT INTO orders SELECT g, CASE WHEN g % 3 = 0 THEN 'open' ELSE 'paid' END, g * 2.5, DATE '2026-01-01' + g FROM generate_series(1, ${ORDERS}) g`);
    await sql(database, `CREATE TABLE ledger (id int PRIMARY KEY, amount int NOT NULL)`);
    await sql(database, `INSERT INTO ledger SELECT g, g FROM generate_series(1, 100) g`);
    auth = await startAuthService();
    // Started side by side; each is kept as soon as it is up, so afterAll stops it even if the other failed.
    await Promise.all([
      freePort()
        .then((port) => startStandaloneProcess(port, dataDir, { FETCHER_DEMO: 'false', PLUGIN_AUTH_ENABLED: 'true', PLUGIN_AUTH_ADDRESS: auth.url }))
        .then((started) => (service = started)),
      launchBrowser().then((launched) => (browser = launched)),
    ]);
    page = await browser.page(1280);
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    page.on('dialog', (dialog) => void dialog.accept());
  });

  afterAll(async () => {
    process.stdout.write(`axe-core findings (none serious or critical):\n${JSON.stringify(axeReport, null, 2)}\nscreenshots: ${shots}\n`);
    await (browser as TestBrowser | undefined)?.close();
    await (service as StandaloneProcess | undefined)?.stop();
    auth?.server.closeAllConnections();
    auth?.server.close();
    rmSync(dataDir, { recursive: true, force: true });
    await sql('postgres', `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  it('serves the page with strict headers, and asks for a token when the API answers 401', async () => {
    const response = await fetch(`${service.baseUrl}/console/`);
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');

    await page.goto(`${service.baseUrl}/console/#/jobs`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await expect(page.getByRole('alert').first().textContent()).resolves.toContain('Missing Token');
    await capture('sign-in');

    // A wrong token is refused by the authorization service: the prompt comes back.
    await page.getByLabel('Bearer token').fill('not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Bearer token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    await page.getByText('No jobs match.').waitFor();

    // Keyboard: after the sign-in, focus is at the page's start; backwards are the pages and the skip
    // link, each drawn with a visible focus ring, and Enter follows a link.
    const focused = () =>
      page.evaluate<{ text: string; outline: string }>(
        '(() => { const s = getComputedStyle(document.activeElement); return { text: document.activeElement.textContent, outline: `${s.outlineStyle} ${s.outlineWidth}` }; })()',
      );
    expect((await focused()).text).toContain('Jobs');
    for (let i = 0; i < 5; i += 1) await page.keyboard.press('Shift+Tab');
    expect(await focused()).toEqual({ text: 'Skip to content', outline: 'solid 3px' });
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await focused()).toEqual({ text: 'Connections', outline: 'solid 3px' });
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Connections' }).waitFor();
  });

  it('shows a validation error on its field, then creates and tests the connection', async () => {
    await open(page, 'connections');
    await page.getByRole('button', { name: 'New connection' }).click();
    const form = page.getByRole('form', { name: 'New connection' });
    await form.getByLabel('Product').fill(product);
    await form.getByLabel('Name').fill('x!');
    await form.getByLabel('Host').fill('127.0.0.1');
    await form.getByLabel('Database').fill(database);
    await form.getByLabel('User').fill('postgres');
    await form.getByRole('button', { name: 'Create connection' }).click();
    const nameError = page.locator('#conn-configName-error');
    await nameError.waitFor();
    expect(await nameError.textContent()).toMatch(/config_name|name/i);
    expect(await form.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    await capture('connection-form-error');

    await form.getByLabel('Name').fill(configName);
    await form.getByRole('button', { name: 'Create connection' }).click();
    const row = page.locator(`tr[data-connection="${configName}"]`);
    await row.waitFor();
    await row.getByRole('button', { name: `Test ${configName}` }).click();
    await row.getByText(/^OK in \d+ ms$/).waitFor();
    await capture('connections');
  });

  it('browses the schema with column types', async () => {
    const id = (await api('GET', '/v1/management/connections', undefined, { 'X-Product-Name': product })).body.items[0].id as string;
    await open(page, `schema?id=${id}`);
    await page.getByText('orders', { exact: true }).waitFor();
    await page.getByLabel('Search tables and columns').fill('placed');
    await page.getByText('1 of 2 tables shown', { exact: false }).waitFor();
    expect(await page.locator('tr.match').first().textContent()).toContain('date (date)');
    await capture('schema');
  });

  let jobId: string;
  it('builds an extraction with a typed filter, validates it, and follows the job to its end', async () => {
    await open(page, 'new-extraction');
    await page.getByLabel('Connection').selectOption({ label: `${configName} (POSTGRESQL)` });
    await page.getByLabel('orders', { exact: true }).check();
    await page.getByLabel(/^id integer$/).first().check();
    await page.getByLabel(/^total decimal$/).check();
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Field', { exact: true }).selectOption('total');
    // A decimal column offers ordering operators and a number input; a text column would offer 'like'.
    const operators = await page.getByLabel('Operator').locator('option').allTextContents();
    expect(operators).toContain('at least');
    expect(operators).not.toContain('matches pattern');
    await page.getByLabel('Operator').selectOption('gte');
    expect(await page.getByLabel('Value', { exact: true }).getAttribute('type')).toBe('number');
    await page.getByLabel('Value', { exact: true }).fill('100');

    const shown = JSON.parse((await page.getByTestId('job-request').textContent()) ?? '{}');
    expect(shown).toEqual({
      dataRequest: { mappedFields: { [configName]: { orders: ['id', 'total'] } }, filters: { [configName]: { orders: { total: { gte: [100] } } } } },
      metadata: { source: product },
    });
    await page.getByRole('button', { name: 'Validate' }).click();
    await page.getByText('Schema validated successfully', { exact: false }).waitFor();
    await capture('new-extraction');

    await page.getByRole('button', { name: 'Start extraction' }).click();
    await page.waitForURL(/#\/jobs\?job=/);
    jobId = new URL(page.url()).hash.split('job=')[1] ?? '';
    const row = page.locator(`tr[data-job="${jobId}"]`);
    await row.locator('.badge.completed').waitFor({ timeout: 30_000 });
    await page.getByTestId('result-hmac').waitFor();
    const job = (await api('GET', `/v1/fetcher/${jobId}`)).body;
    expect(await page.getByTestId('result-hmac').textContent()).toBe(job.resultHmac);
    // The size and row count the Worker recorded at completion, as the API reports them.
    expect(job.resultStats).toEqual({ sizeBytes: expect.any(Number), rowCount: ORDERS - 39, rowCounts: { [configName]: ORDERS - 39 } });
    expect(await page.getByTestId('result-size').getAttribute('title')).toBe(`${job.resultStats.sizeBytes.toLocaleString('en')} bytes of JSON before encryption`);
    expect(await page.getByTestId('result-rows').textContent()).toBe(`${(ORDERS - 39).toLocaleString('en')} in all`);

    // The standalone service serves the result route on loopback by default: the console offers the
    // download, and the file it saves is byte for byte what the CLI decrypts (and checks) from the data directory.
    const [saved] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download result' }).click()]);
    expect(saved.suggestedFilename()).toBe(`${jobId}.json`);
    const downloaded = join(dataDir, '..', `${suffix}-download.json`);
    await saved.saveAs(downloaded);
    await page.getByText(/^Downloaded [\d,]+ bytes \(HMAC checked by the server\)$/).waitFor();
    const cliOut = join(dataDir, '..', `${suffix}-cli.json`);
    const decrypted = runFetcher(['result', 'decrypt', jobId, '--out', cliOut], { FETCHER_DATA_DIR: dataDir });
    expect(decrypted.status).toBe(0);
    try {
      expect(readFileSync(downloaded).equals(readFileSync(cliOut))).toBe(true);
      expect(readFileSync(downloaded).length).toBe(job.resultStats.sizeBytes);
      // The extraction the console built returns exactly the filtered rows.
      const rows = JSON.parse(readFileSync(downloaded, 'utf8'))[configName].orders as { id: number }[];
      expect(rows.map((r) => r.id).sort((a, b) => a - b)).toEqual(Array.from({ length: ORDERS - 39 }, (_, i) => i + 40));
    } finally {
      rmSync(downloaded, { force: true });
      rmSync(cliOut, { force: true });
    }
    await capture('job-completed');
  });

  it('shows the decrypt command to copy instead when the Manager does not serve the result route', async () => {
    // What a Manager without RESULT_DOWNLOAD_ENABLED answers at /console/settings.json (its own
    // answer is checked in apps/manager/src/console/console.route.spec.ts); the rest is the real service.
    const other = await browser.page(1280);
    try {
      await other.route('**/console/settings.json', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: '{"resultDownload":false}' }));
      await open(other, `jobs?job=${jobId}`);
      await other.getByTestId('result-hmac').waitFor();
      await other.getByText(`npx fetcher result decrypt ${jobId}`).waitFor();
      expect(await other.getByRole('button', { name: 'Download result' }).count()).toBe(0);
    } finally {
      await other.context().close();
    }
  });

  it('explains why the connection of a running job cannot be deleted, and cancels the job from the list', async () => {
    // A lock held on the table keeps the job's query waiting, so the job is reliably running when canceled.
    const holder = new Client(postgres(database));
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE ledger IN ACCESS EXCLUSIVE MODE');
    try {
      const created = await api('POST', '/v1/fetcher', { dataRequest: { mappedFields: { [configName]: { ledger: ['id', 'amount'] } } }, metadata: { source: product } });
      expect(created.status).toBe(202);
      const running = created.body.jobId as string;
      await eventually(async () => ((await api('GET', `/v1/fetcher/${running}`)).body.status === 'processing' ? true : undefined), 20_000);

      // While it runs, its connection cannot be deleted, and the console says why.
      await open(page, 'connections');
      await page.getByRole('button', { name: `Delete ${configName}` }).click();
      await page.locator('p.notice', { hasText: `${configName} is used by a pending or processing job` }).waitFor();

      await open(page, 'jobs');
      const row = page.locator(`tr[data-job="${running}"]`);
      await row.locator('.badge.processing').waitFor();
      await capture('jobs');
      await row.getByRole('button', { name: /^Cancel job/ }).focus();
      await page.keyboard.press('Enter');
      await page.locator('p.notice', { hasText: /cancel requested|: canceled/ }).waitFor();
      await row.locator('.badge.canceled').waitFor({ timeout: 20_000 });
      expect((await api('GET', `/v1/fetcher/${running}`)).body.status).toBe('canceled');
      // The completed job is still listed below it.
      await page.locator(`tr[data-job="${jobId}"] .badge.completed`).waitFor();
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
    expect(cspViolations).toEqual([]);
  });
});
