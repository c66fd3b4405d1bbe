/**
 * What a consuming service does with @fetcher/engine: `npm pack` it, install the tarball alone into
 * an empty project (no registry, nothing else installed), and run an extraction through the
 * in-memory harness with plain `node`. It spawns npm and node, so it belongs to the integration tier.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

const CONSUMER_CJS = `
const { ConnectionInput, EngineError, JsonNumber, createEngine, createTenantContext } = require('@fetcher/engine');
const { MemoryConnectionStore, MemoryConnectorFactory, MemoryConnectorRegistry, MemoryResultSink, TemplateConnector } = require('@fetcher/engine/memory');

async function main() {
  const template = new TemplateConnector({
    rows: { users: [{ id: 2n ** 63n - 1n, name: 'Ada', doc: { z: 1, a: new JsonNumber('1.10') } }], empty: [] },
  });
  const registry = new MemoryConnectorRegistry().register('memory', new MemoryConnectorFactory(template));
  const sink = new MemoryResultSink();
  const engine = createEngine({ connectorRegistry: registry, connectionStore: new MemoryConnectionStore(), resultSink: sink });
  const tenant = createTenantContext('consumer');
  await engine.createConnection(tenant, new ConnectionInput({ configName: 'crm', type: 'memory', host: 'h', port: 1, databaseName: 'd', userName: 'u' }));
  const plan = await engine.planExtraction(tenant, { mappedFields: { crm: { users: ['*'], empty: ['*'] } } });
  const stored = await engine.executeExtraction(plan);
  plan.mode = 'direct';
  const direct = await engine.executeExtraction(plan);
  let refused = '';
  try {
    createEngine({});
  } catch (error) {
    refused = error instanceof EngineError ? String(error) : 'not an EngineError';
  }
  process.stdout.write(JSON.stringify({
    document: new TextDecoder().decode(direct.direct.data),
    digest: direct.direct.integrity.digest,
    rowCounts: direct.rowCounts,
    storedDocument: new TextDecoder().decode(sink.get(stored.reference.path)),
    storedDigest: stored.reference.integrity.digest,
    refused,
  }));
}
main().catch((error) => {
  process.stderr.write(String(error) + '\\n');
  process.exit(1);
});
`;

const CONSUMER_TS = `
import { createEngine, type Engine, type ExtractionResult } from '@fetcher/engine';
import { MemoryConnectorRegistry, type ConnectorBehavior } from '@fetcher/engine/memory';
const engine: Engine = createEngine({ connectorRegistry: new MemoryConnectorRegistry() });
const behavior: ConnectorBehavior = { rows: {} };
export const typed: [Engine, ConnectorBehavior, ExtractionResult | undefined] = [engine, behavior, undefined];
`;

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('the packed @fetcher/engine in an otherwise empty project', () => {
  let work: string;
  let consumer: string;
  let tarball: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'fetcher-engine-pack-'));
    const packs = join(work, 'packs');
    consumer = join(work, 'consumer');
    mkdirSync(packs);
    mkdirSync(consumer);
    run('npm', ['pack', '-w', '@fetcher/engine', '--pack-destination', packs], ROOT);
    tarball = join(packs, readdirSync(packs).find((f) => f.endsWith('.tgz'))!);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'engine-consumer', version: '1.0.0', private: true }));
    run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], consumer);
  }, 180_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('installs nothing but the engine', () => {
    expect(readdirSync(join(consumer, 'node_modules')).filter((f) => !f.startsWith('.'))).toEqual(['@fetcher']);
    expect(readdirSync(join(consumer, 'node_modules', '@fetcher'))).toEqual(['engine']);
    const installed = JSON.parse(readFileSync(join(consumer, 'node_modules', '@fetcher', 'engine', 'package.json'), 'utf8'));
    expect(installed.dependencies ?? {}).toEqual({});
  });

  it('ships compiled code with declarations for both entry points, and no tests or sources', () => {
    const pkg = join(consumer, 'node_modules', '@fetcher', 'engine');
    for (const file of ['dist/index.js', 'dist/index.d.ts', 'dist/memory/index.js', 'dist/memory/index.d.ts', 'README.md']) {
      expect(existsSync(join(pkg, file))).toBe(true);
    }
    const shipped = readdirSync(pkg, { recursive: true, encoding: 'utf8' });
    expect(shipped.filter((f) => /\.spec\.|^src\/|^test\/|^examples\//.test(f))).toEqual([]);
  });

  it('runs an extraction from a CommonJS script with plain node', () => {
    writeFileSync(join(consumer, 'extract.cjs'), CONSUMER_CJS);
    const output = JSON.parse(run(process.execPath, ['extract.cjs'], consumer)) as Record<string, unknown>;
    const document = '{"crm":{"empty":[],"users":[{"doc":{"a":1.10,"z":1},"id":9223372036854775807,"name":"Ada"}]}}';
    expect(output).toEqual({
      document,
      digest: createHash('sha256').update(document).digest('hex'),
      rowCounts: { crm: 1 },
      storedDocument: document,
      storedDigest: createHash('sha256').update(document).digest('hex'),
      refused: 'engine: [validation] connector registry is required',
    });
  });

  it('type-checks a TypeScript consumer against the shipped declarations', () => {
    writeFileSync(join(consumer, 'consumer.ts'), CONSUMER_TS);
    const tsconfig = {
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'ES2023',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        typeRoots: [join(ROOT, 'node_modules', '@types')],
        types: ['node'],
      },
      files: ['consumer.ts'],
    };
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify(tsconfig));
    expect(run(process.execPath, [TSC, '-p', 'tsconfig.json'], consumer)).toBe('');
  }, 120_000);
});
