import { type ChildProcess } from 'node:child_process';

/**
 * Service processes a suite started and has not seen exit. A hook that times out (or a test that
 * throws before its `stop`) would otherwise leave the built app running after jest, holding its
 * port and anything it inherited; SIGKILL is the only thing an `exit` listener can still send.
 */
const alive = new Set<ChildProcess>();
let listening = false;

/** Kills `child` when this test process exits, unless it has exited by then. */
export function reapOnExit(child: ChildProcess): ChildProcess {
  alive.add(child);
  child.once('exit', () => alive.delete(child));
  if (!listening) {
    listening = true;
    process.once('exit', () => {
      for (const running of alive) running.kill('SIGKILL');
    });
  }
  return child;
}
