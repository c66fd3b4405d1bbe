/**
 * Preloaded into a Worker process by the resource-fault chaos tests (NODE_OPTIONS=--require ...):
 * file operations under FETCHER_CHAOS_SPOOL_DIR fail the way a full or unwritable disk fails them,
 * while the control file FETCHER_CHAOS_FAULT_FILE holds `ENOSPC` (every write fails) or `EACCES`
 * (every open fails). Without the file, nothing changes; the test switches the fault on and off by
 * writing and removing it. Needed because a small filesystem cannot be mounted here and the tests
 * may run as root, whom chmod does not stop. Test tooling only: never shipped.
 */
'use strict';
const fs = require('node:fs');
const { resolve, sep } = require('node:path');

const root = process.env.FETCHER_CHAOS_SPOOL_DIR;
const control = process.env.FETCHER_CHAOS_FAULT_FILE;

if (root && control) {
  const base = resolve(root) + sep;
  const fault = () => {
    try {
      return fs.readFileSync(control, 'utf8').trim();
    } catch {
      return '';
    }
  };
  const failure = (code, syscall) => {
    const text = code === 'ENOSPC' ? 'no space left on device' : 'permission denied';
    return Object.assign(new Error(`${code}: ${text}, ${syscall}`), { code, errno: code === 'ENOSPC' ? -28 : -13, syscall });
  };
  const promises = fs.promises;
  const open = promises.open;
  promises.open = async function chaosOpen(path, ...rest) {
    const under = typeof path === 'string' && resolve(path).startsWith(base);
    if (under && fault() === 'EACCES') throw failure('EACCES', 'open');
    const handle = await open.call(this, path, ...rest);
    if (under) {
      const write = handle.write;
      handle.write = async function chaosWrite(...args) {
        if (fault() === 'ENOSPC') throw failure('ENOSPC', 'write');
        return write.apply(this, args);
      };
    }
    return handle;
  };
}
