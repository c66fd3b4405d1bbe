import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './support/app-process';
import { ROOT, startStandaloneProcess, type StandaloneProcess } from './support/standalone-process';

/** The `sh` code blocks of the README's "## Quick start" section, in order. */
function quickStartBlocks(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((part) => part.startsWith('Quick start\n'));
  if (!section) throw new Error('README.md has no "## Quick start" section');
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
}

/** Splits the outputs of the commands (JSON documents, printed without separating newlines) into values. */
function jsonValues(text: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let inString = false;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (depth === 0) start = i;
      depth += 1;
    } else if (c === '}' || c === ']') {
      depth -= 1;
      if (depth === 0) values.push(JSON.parse(text.slice(start, i + 1)));
    }
  }
  return values;
}

/**
 * The README's quick start, run as written against the built standalone service, so that it cannot
 * drift: the first block starts the service (npm start must be the standalone service), the second
 * is pasted into a shell with only the port and the data directory changed.
 */
describe('the README quick start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-e2e-readme-'));
  let service: StandaloneProcess | undefined;

  afterAll(async () => {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts the service with npm ci && npm start', () => {
    const [start] = quickStartBlocks();
    expect(start).toBe('npm ci && npm start\n');
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    // The start script brings the build up to date (tsc -b, see test/deploy/build-graph.int-spec.ts)
    // and then runs the built service.
    expect(scripts.start).toBe('node apps/standalone/bin/start.js');
    expect(scripts['start:standalone']).toBe(scripts.start);
    const startJs = readFileSync(join(ROOT, 'apps', 'standalone', 'bin', 'start.js'), 'utf8');
    expect(startJs).toMatch(/spawnSync\(process\.execPath, \[tsc, '-b', \.\.\.projects\]/);
    expect(startJs).toContain("require(path.join(__dirname, '..', 'dist', 'main.js'))");
  });

  /** Runs the README's second block against the started service, after `edit` (the port is always changed). */
  async function runCommands(edit: (commands: string) => string = (commands) => commands) {
    const [, commands] = quickStartBlocks();
    expect(commands).toContain('http://127.0.0.1:4006');
    if (!service) service = await startStandaloneProcess(await freePort(), dataDir);
    const script = edit(commands).replaceAll('http://127.0.0.1:4006', service.baseUrl);
    return spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), FETCHER_DATA_DIR: dataDir, npm_config_update_notifier: 'false' },
      encoding: 'utf8',
      timeout: 120_000,
    });
  }

  it('lists the demo connection, runs a job and decrypts its result with the commands as written', async () => {
    const run = await runCommands();
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });

    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers are read field by field in the assertions
    const [connections, job, document] = jsonValues(run.stdout) as [any, any, any];
    expect(connections).toMatchObject({ total: 1, items: [{ configName: 'demo', productName: 'demo' }] });
    expect(job).toMatchObject({ status: 'completed', metadata: { source: 'demo' } });
    expect(document.demo['shop.customers']).toHaveLength(120);
    expect(document.demo['shop.orders']).toHaveLength(400);
    expect(document.demo['shop.customers'][0]).toEqual({ country: 'US', id: 1, name: 'Grace Hopper' });
  });

  it('stops at a refused job and shows its error body instead of polling for it', async () => {
    // A malformed request body: the Manager answers 400 FET-0001 and there is no job to wait for.
    const run = await runCommands((commands) => commands.replace(`-d '{"dataRequest":{`, `-d '{"dataRequest":{{`));
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('FET-0001');
    // Only the connection list was printed: nothing was polled or decrypted after the refusal.
    expect(jsonValues(run.stdout)).toHaveLength(1);
  });
});
