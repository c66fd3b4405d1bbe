/**
 * How other services get @fetcher/engine: from an internal npm registry, by name. A verdaccio on
 * loopback stands in for that registry (empty storage, no uplinks). The packed engine is published to
 * it with a throwaway token, then an empty project with the `.npmrc` the root README documents
 * installs it by name and runs an extraction through the in-memory harness with plain `node`.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

const CONSUMER = `
const { ConnectionInput, createEngine, createTenantContext } = require('@fetcher/engine');
const { MemoryConnectionStore, MemoryConnectorFactory, MemoryConnectorRegistry, TemplateConnector } = require('@fetcher/engine/memory');

async function main() {
  const template = new TemplateConnector({ rows: { orders: [{ id: 1n, total: 12.5, customer: 'Ada' }, { id: 2n, total: 3, customer: 'Alan' }] } });
  const engine = createEngine({
    connectorRegistry: new MemoryConnectorRegistry().register('memory', new MemoryConnectorFactory(template)),
    connectionStore: new MemoryConnectionStore(),
  });
  const tenant = createTenantContext('billing-service');
  await engine.createConnection(tenant, new ConnectionInput({ configName: 'shop', type: 'memory', host: 'h', port: 1, databaseName: 'shop', userName: 'u' }));
  const plan = await engine.planExtraction(tenant, { mappedFields: { shop: { orders: ['id', 'total'] } } });
  const result = await engine.executeExtraction(plan);
  process.stdout.write(JSON.stringify({
    document: new TextDecoder().decode(result.direct.data),
    digest: result.direct.integrity.digest,
    rowCounts: result.rowCounts,
  }));
}
main().catch((error) => {
  process.stderr.write(String(error) + '\\n');
  process.exit(1);
});
`;

/**
 * Only PATH and a fresh HOME: npm_config_* variables (a jest run under `npm test` has some) and the
 * developer's ~/.npmrc must not change what npm does here.
 */
function cleanEnv(home: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home };
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} failed: ${stderr || error.message}`));
      else resolve(stdout);
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Polls /-/ping until verdaccio answers (bounded), or fails with its output if it exits first. */
async function waitForRegistry(url: string, child: ChildProcess, output: () => string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited with ${child.exitCode}: ${output()}`);
    try {
      const response = await fetch(`${url}-/ping`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`verdaccio did not answer on ${url}: ${output()}`);
}

describe('@fetcher/engine from an internal npm registry (verdaccio on loopback)', () => {
  let work: string;
  let registry: string;
  let verdaccio: ChildProcess | undefined;
  let log = '';
  let consumer: string;
  let env: NodeJS.ProcessEnv;
  let userconfig: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'fetcher-registry-'));
    const home = join(work, 'home');
    mkdirSync(home);
    env = cleanEnv(home);
    const port = await freePort();
    registry = `http://127.0.0.1:${port}/`;
    writeFileSync(join(work, 'verdaccio.yaml'), [
      `storage: ${join(work, 'storage')}`,
      'uplinks: {}',
      'web: { enable: false }',
      'auth: { htpasswd: { file: ./htpasswd, max_users: -1 } }',
      'packages:',
      "  '@fetcher/*': { access: $all, publish: $all, unpublish: $all }",
      "  '**': { access: $all }",
      'log: { type: stdout, format: json, level: warn }',
    ].join('\n'));
    verdaccio = spawn(process.execPath, [require.resolve('verdaccio/bin/verdaccio'), '--config', join(work, 'verdaccio.yaml'), '--listen', `127.0.0.1:${port}`], {
      cwd: work,
      env: { ...env, NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    verdaccio.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    verdaccio.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    await waitForRegistry(registry, verdaccio, () => log);

    // The publisher: a throwaway token for this registry only, in its own userconfig.
    userconfig = join(work, 'publisher.npmrc');
    writeFileSync(userconfig, `//127.0.0.1:${port}/:_authToken=throwaway-test-token\n`);
    const packs = join(work, 'packs');
    mkdirSync(packs);
    await run('npm', ['pack', '-w', '@fetcher/engine', '--pack-destination', packs, '--userconfig', userconfig], ROOT, env);
    const tarball = join(packs, readdirSync(packs).find((file) => file.endsWith('.tgz'))!);
    // --registry wins over the package's publishConfig.registry (the real internal registry).
    await run('npm', ['publish', tarball, '--registry', registry, '--userconfig', userconfig, '--cache', join(work, 'cache')], work, env);

    // The consumer: an empty project whose .npmrc maps the @fetcher scope to the registry.
    consumer = join(work, 'consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'billing-service', version: '1.0.0', private: true }));
    writeFileSync(join(consumer, '.npmrc'), `@fetcher:registry=${registry}\n//127.0.0.1:${port}/:_authToken=throwaway-test-token\n`);
    await run('npm', ['install', '@fetcher/engine', '--no-audit', '--no-fund', '--userconfig', join(work, 'empty.npmrc'), '--cache', join(work, 'consumer-cache')], consumer, env);
  }, 120_000);

  afterAll(async () => {
    if (verdaccio && verdaccio.exitCode === null) {
      const exited = new Promise((resolve) => verdaccio!.once('exit', resolve));
      verdaccio.kill('SIGTERM');
      await exited;
    }
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('publishes the packed engine with the metadata an internal registry needs', async () => {
    const view = JSON.parse(await run('npm', ['view', '@fetcher/engine', '--json', '--registry', registry, '--userconfig', userconfig], work, env)) as Record<string, unknown>;
    const source = JSON.parse(readFileSync(join(ROOT, 'libs', 'engine', 'package.json'), 'utf8')) as { version: string; publishConfig: unknown };
    expect(view.name).toBe('@fetcher/engine');
    expect(view.version).toBe(source.version);
    expect(view.repository).toMatchObject({ type: 'git', directory: 'libs/engine' });
    expect(view.publishConfig).toEqual(source.publishConfig);
    expect(view.dependencies ?? {}).toEqual({});
    expect(view['dist-tags']).toEqual({ latest: source.version });
  });

  it('installs by name from the registry, and nothing else', () => {
    const lock = JSON.parse(readFileSync(join(consumer, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string; version?: string }> };
    expect(Object.keys(lock.packages).filter((key) => key !== '')).toEqual(['node_modules/@fetcher/engine']);
    expect(lock.packages['node_modules/@fetcher/engine'].resolved).toMatch(new RegExp(`^${registry}@fetcher/engine/-/engine-\\d+\\.\\d+\\.\\d+\\.tgz$`));
    const manifest = JSON.parse(readFileSync(join(consumer, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(manifest.dependencies['@fetcher/engine']).toMatch(/^\^\d+\.\d+\.\d+$/);
  });

  it('runs an extraction with the in-memory harness in the consuming project', async () => {
    writeFileSync(join(consumer, 'extract.cjs'), CONSUMER);
    const output = JSON.parse(await run(process.execPath, ['extract.cjs'], consumer, env)) as Record<string, unknown>;
    const document = '{"shop":{"orders":[{"id":1,"total":12.5},{"id":2,"total":3}]}}';
    expect(output).toEqual({ document, digest: createHash('sha256').update(document).digest('hex'), rowCounts: { shop: 2 } });
  });
});
