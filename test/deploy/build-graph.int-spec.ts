/**
 * The TypeScript build graph behind `npm run build` and `npm start` (tsconfig.build.json at the root
 * and in every workspace): each workspace is a composite project that references exactly the
 * workspaces it depends on, so `tsc -b` builds them in order and skips those that are up to date.
 * A missing reference would build a workspace against a stale dependency; a rebuild that rewrites
 * files would make every restart pay for a compilation. It runs the compiler, so it belongs to the
 * integration tier.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const BUILD_CONFIG = 'tsconfig.build.json';

interface Manifest {
  readonly name: string;
  readonly dependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
  readonly scripts?: Record<string, string>;
}
interface BuildConfig {
  readonly compilerOptions?: { composite?: boolean; outDir?: string; tsBuildInfoFile?: string };
  readonly references?: readonly { path: string }[];
}

/** tsconfig files allow comments; the root one has some. */
function readConfig(path: string): BuildConfig {
  return JSON.parse(readFileSync(path, 'utf8').replace(/^\s*\/\/.*$/gm, '')) as BuildConfig;
}

/** Every workspace folder with a build config, from package.json's workspace globs. */
function workspaces(): string[] {
  const globs = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
  const folders = globs.flatMap((glob) => (glob.endsWith('/*') ? readdirSync(join(ROOT, glob.slice(0, -2))).map((name) => `${glob.slice(0, -2)}/${name}`) : [glob]));
  return folders.filter((folder) => existsSync(join(ROOT, folder, BUILD_CONFIG))).sort();
}

const manifest = (folder: string) => JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')) as Manifest;
const referencedFolders = (configPath: string) => (readConfig(configPath).references ?? []).map((ref) => relative(ROOT, dirname(resolve(dirname(configPath), ref.path)))).sort();

/** Every file under each workspace's dist/, with its modification time. */
function distSnapshot(): Map<string, number> {
  const snapshot = new Map<string, number>();
  for (const folder of workspaces()) {
    const dist = join(ROOT, folder, 'dist');
    for (const file of readdirSync(dist, { recursive: true, encoding: 'utf8' })) snapshot.set(join(folder, 'dist', file), statSync(join(dist, file)).mtimeMs);
  }
  return snapshot;
}

describe('the build graph', () => {
  const folders = workspaces();
  const byName = new Map(folders.map((folder) => [manifest(folder).name, folder]));

  it('builds every workspace from the root', () => {
    expect(folders.length).toBeGreaterThanOrEqual(9);
    expect(referencedFolders(join(ROOT, BUILD_CONFIG))).toEqual(folders);
    // The operator console is bundled by Vite after the TypeScript workspaces (it imports none of them).
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.build).toBe(`tsc -b ${BUILD_CONFIG} && npm run build -w @fetcher/console`);
  });

  it.each(folders)('%s is a composite project that references exactly the workspaces it depends on', (folder) => {
    const config = readConfig(join(ROOT, folder, BUILD_CONFIG));
    expect(config.compilerOptions).toMatchObject({ composite: true, outDir: 'dist', tsBuildInfoFile: `dist/${BUILD_CONFIG.replace('.json', '.tsbuildinfo')}` });
    const { dependencies = {}, devDependencies = {}, scripts = {} } = manifest(folder);
    const dependsOn = Object.keys({ ...dependencies, ...devDependencies }).flatMap((name) => byName.get(name) ?? []).sort();
    expect(referencedFolders(join(ROOT, folder, BUILD_CONFIG))).toEqual(dependsOn);
    expect(scripts.build).toBe(`tsc -b ${BUILD_CONFIG}`);
  });

  it('npm start builds the standalone service, everything it runs on, and the CLI its banner names', () => {
    const start = readFileSync(join(ROOT, 'apps', 'standalone', 'bin', 'start.js'), 'utf8');
    expect(start).toContain("['apps/standalone/tsconfig.build.json', 'apps/cli/tsconfig.build.json']");
    const closure = new Set<string>();
    const visit = (folder: string): void => {
      if (closure.has(folder)) return;
      closure.add(folder);
      referencedFolders(join(ROOT, folder, BUILD_CONFIG)).forEach(visit);
    };
    visit('apps/standalone');
    expect([...closure].sort()).toEqual(['apps/manager', 'apps/standalone', 'apps/worker', 'libs/connectors', 'libs/contracts', 'libs/engine', 'libs/platform']);
  });

  it('rebuilds nothing when nothing changed: no output, no file written', () => {
    execFileSync(process.execPath, [TSC, '-b', BUILD_CONFIG], { cwd: ROOT, stdio: 'pipe' }); // whatever is out of date
    const before = distSnapshot();
    const output = execFileSync(process.execPath, [TSC, '-b', BUILD_CONFIG], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' });
    expect(output).toBe('');
    expect(distSnapshot()).toEqual(before);
    const dry = execFileSync(process.execPath, [TSC, '-b', '--dry', '--verbose', BUILD_CONFIG], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' });
    expect(dry).not.toMatch(/A non-dry build would build/);
  }, 300_000);
});
