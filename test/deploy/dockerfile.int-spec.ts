/**
 * docker/Dockerfile, read as text: no image can be built on this machine (no base image can be
 * pulled), so this checks what a build depends on and what a broken edit would silently lose: the
 * stages, the runtime hardening, and that each image carries every workspace package its app needs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const DOCKERFILE = readFileSync(join(ROOT, 'docker', 'Dockerfile'), 'utf8');
const DOCKERIGNORE = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').map((line) => line.trim());

/** The instructions of one stage, continuation lines joined. */
function stage(name: string): string[] {
  const lines = DOCKERFILE.replace(/\\\n\s*/g, ' ').split('\n');
  const start = lines.findIndex((line) => new RegExp(`^FROM \\S+ AS ${name}$`).test(line));
  if (start < 0) throw new Error(`no stage ${name}`);
  const end = lines.findIndex((line, index) => index > start && line.startsWith('FROM '));
  return lines.slice(start, end < 0 ? undefined : end).filter((line) => line && !line.startsWith('#'));
}

/** What an image built from stage `name` holds: the instructions of its parent stages, then its own. */
function image(name: string): string[] {
  const own = stage(name);
  const parent = /^FROM (\S+) AS /.exec(own[0] ?? '')?.[1] ?? '';
  const isStage = new RegExp(`^FROM \\S+ AS ${parent}$`, 'm').test(DOCKERFILE);
  return isStage ? [...image(parent), ...own] : own;
}

/** The @fetcher workspaces a package depends on, transitively, as repository folders. */
function workspaceFolders(packageFolder: string, seen = new Set<string>()): Set<string> {
  const manifest = JSON.parse(readFileSync(join(ROOT, packageFolder, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  for (const name of Object.keys(manifest.dependencies ?? {}).filter((dep) => dep.startsWith('@fetcher/'))) {
    const folder = `libs/${name.slice('@fetcher/'.length)}`;
    if (!seen.has(folder)) {
      seen.add(folder);
      workspaceFolders(folder, seen);
    }
  }
  return seen;
}

describe('docker/Dockerfile', () => {
  it('builds once, in a shared stage, and installs each app\'s production dependencies only', () => {
    const build = stage('build').join('\n');
    expect(build).toMatch(/npm ci --ignore-scripts --no-audit --no-fund/);
    expect(build).toMatch(/npm run build -w @fetcher\/engine -w @fetcher\/platform -w @fetcher\/contracts -w @fetcher\/connectors -w @fetcher\/manager -w @fetcher\/worker -w @fetcher\/console/);
    for (const app of ['manager', 'worker']) {
      expect(stage(`${app}-deps`).join('\n')).toContain(`npm ci --omit=dev --ignore-scripts --no-audit --no-fund -w @fetcher/${app}`);
      // The runtime image takes node_modules from the production install, never from the build stage.
      const copies = image(app).filter((line) => line.includes('node_modules'));
      expect(copies).toContain(`COPY --from=${app}-deps --chown=0:0 /src/node_modules ./node_modules`);
      for (const line of copies) expect(line).toMatch(new RegExp(`^COPY --from=${app}-deps --chown=0:0 /src/(\\S+/)?node_modules \\./(\\S+/)?node_modules$`));
    }
  });

  it.each(['manager', 'worker'])('ships every workspace package the %s needs, and starts it with node', (app) => {
    const lines = image(app);
    const runtime = lines.join('\n');
    for (const folder of [`apps/${app}`, ...workspaceFolders(`apps/${app}`)]) {
      expect(runtime).toContain(`COPY --from=build --chown=0:0 /src/${folder}/package.json ./${folder}/package.json`);
      expect(runtime).toContain(`COPY --from=build --chown=0:0 /src/${folder}/dist ./${folder}/dist`);
    }
    expect(runtime).toContain(`CMD ["node", "apps/${app}/dist/main.js"]`);
    // The Manager serves the operator console from its build, where CONSOLE_DIR's default points.
    if (app === 'manager') expect(runtime).toContain('COPY --from=build --chown=0:0 /src/apps/console/dist ./apps/console/dist');
    expect(runtime).toMatch(new RegExp(`HEALTHCHECK .*CMD \\["node", "/app/healthcheck.cjs", "${app}"\\]`));
    expect(runtime).toMatch(/LABEL org\.opencontainers\.image\.title=.* org\.opencontainers\.image\.version=.* org\.opencontainers\.image\.revision=/);
    expect(runtime).toContain(app === 'manager' ? 'EXPOSE 4006' : 'EXPOSE 4007');
    // The last USER wins: the image runs unprivileged.
    expect(lines.filter((line) => line.startsWith('USER ')).pop()).toBe('USER 1000:1000');
  });

  // npm installs a package inside a workspace folder when it cannot hoist it to the root (a version
  // conflict, or a peer set that does not fit there): Node finds it only if that folder ships too.
  it.each(['manager', 'worker'])('ships the production packages npm keeps inside the %s\'s workspace folders', (app) => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    const folders = [`apps/${app}`, ...workspaceFolders(`apps/${app}`)];
    const nested = folders.filter((folder) => Object.entries(lock.packages).some(([path, entry]) => path.startsWith(`${folder}/node_modules/`) && !entry.dev));
    const runtime = image(app);
    for (const folder of nested) expect(runtime).toContain(`COPY --from=${app}-deps --chown=0:0 /src/${folder}/node_modules ./${folder}/node_modules`);
  });

  it('runs Node under tini, so SIGTERM reaches it and the drain runs', () => {
    const runtime = stage('runtime');
    expect(runtime.join('\n')).toContain('apt-get install -y --no-install-recommends tini');
    expect(runtime).toContain('ENTRYPOINT ["/usr/bin/tini", "--"]');
    expect(runtime).toContain('USER 1000:1000');
  });

  it('keeps local dependencies, build output, git data and secrets out of the build context', () => {
    for (const pattern of ['**/node_modules', '**/dist', '.git', '.env', '**/.env', 'docker/.env']) expect(DOCKERIGNORE).toContain(pattern);
  });
});
