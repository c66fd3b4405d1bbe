#!/usr/bin/env node
'use strict';
// `npm start`: bring the standalone service's build up to date, then run it in this process.
//
// `tsc -b` compiles only the workspaces whose sources (or whose dependencies' declarations) changed
// since their last build, recorded in each workspace's dist/tsconfig.build.tsbuildinfo: on a fresh
// clone it builds everything once, on a restart with nothing changed it checks and writes nothing
// (about a second). It runs in a child process so that the compiler's memory is returned before the
// service starts. It prints only compiler errors; the CLI is built too, since the banner tells the
// user to run `npx fetcher result decrypt`, and so is the operator console the banner links to.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..', '..', '..');
const projects = ['apps/standalone/tsconfig.build.json', 'apps/cli/tsconfig.build.json'];

let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
} catch {
  process.stderr.write('fetcher: TypeScript is not installed. Run `npm ci` in the repository first.\n');
  process.exit(2);
}

const build = spawnSync(process.execPath, [tsc, '-b', ...projects], { cwd: root, stdio: 'inherit' });
if (build.error || build.status !== 0) {
  process.stderr.write('fetcher: the build failed (compiler output above); nothing was started.\n');
  process.exit(build.status || 1);
}

buildConsole();

require(path.join(__dirname, '..', 'dist', 'main.js'));

/**
 * The operator console (apps/console) is bundled by Vite, not tsc: rebuilt only when a source file is
 * newer than its last build's index.html, so a restart with nothing changed costs a directory walk.
 * A failed console build stops the start like a failed compile: the banner would name a broken page.
 */
function buildConsole() {
  const consoleDir = path.join(root, 'apps', 'console');
  const built = path.join(consoleDir, 'dist', 'index.html');
  const builtAt = fs.existsSync(built) ? fs.statSync(built).mtimeMs : 0;
  const sources = ['index.html', 'vite.config.mjs', 'package.json', 'src'].map((name) => path.join(consoleDir, name));
  if (builtAt > 0 && newest(sources) <= builtAt) return;
  let vite;
  try {
    // Its exports map hides bin/, so the CLI is found beside the package manifest.
    vite = path.join(path.dirname(require.resolve('vite/package.json', { paths: [consoleDir, root] })), 'bin', 'vite.js');
  } catch {
    process.stderr.write('fetcher: Vite is not installed. Run `npm ci` in the repository first.\n');
    process.exit(2);
  }
  const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'error'], { cwd: consoleDir, stdio: 'inherit' });
  if (result.error || result.status !== 0) {
    process.stderr.write('fetcher: the console build failed (output above); nothing was started.\n');
    process.exit(result.status || 1);
  }
}

/** The latest modification time under the given files and folders (0 when none exists). */
function newest(paths) {
  let latest = 0;
  for (const entry of paths) {
    if (!fs.existsSync(entry)) continue;
    const stat = fs.statSync(entry);
    latest = Math.max(latest, stat.mtimeMs);
    if (stat.isDirectory()) latest = Math.max(latest, newest(fs.readdirSync(entry).map((name) => path.join(entry, name))));
  }
  return latest;
}
