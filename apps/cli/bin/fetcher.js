#!/usr/bin/env node
'use strict';
// The compiled CLI lives in dist/. A fresh checkout has none until `npm run build` runs, and a
// module-not-found stack trace would tell a user nothing, so say what to do instead.
const path = require('node:path');
const entry = path.join(__dirname, '..', 'dist', 'main.js');
try {
  require.resolve(entry);
} catch {
  process.stderr.write('fetcher: the CLI is not built yet. Run `npm run build` in the repository first.\n');
  process.exit(2);
}
require(entry);
