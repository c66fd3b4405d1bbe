#!/usr/bin/env node
'use strict';
// `npm start`: bring the standalone service's build up to date, then run it in this process.
//
// `tsc -b` compiles only the workspaces whose sources (or whose dependencies' declarations) changed
// since their last build, recorded in each workspace's dist/tsconfig.build.tsbuildinfo: on a fresh
// clone it builds everything once, on a restart with nothing changed it checks and writes nothing
// (about a second). It runs in a child process so that the compiler's memory is returned before the
// service starts. It prints only compiler errors; the CLI is built too, since the banner tells the
// user to run `npx fetcher result decrypt`.
const { spawnSync } = require('node:child_process');
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

require(path.join(__dirname, '..', 'dist', 'main.js'));
