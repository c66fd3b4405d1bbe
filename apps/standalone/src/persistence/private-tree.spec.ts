import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { restrictTree } from './private-tree';

describe(restrictTree.name, () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'private-tree-spec-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('makes directories 0700 and files 0600 at every depth, and leaves what a link points to alone', async () => {
    const tree = join(root, 'db');
    mkdirSync(join(tree, 'base', '1'), { recursive: true });
    for (const file of ['PG_VERSION', 'base/1/1259']) writeFileSync(join(tree, file), 'x');
    const outside = join(root, 'outside');
    writeFileSync(outside, 'x');
    chmodSync(outside, 0o644);
    symlinkSync(outside, join(tree, 'link'));
    for (const path of ['', 'base', 'base/1']) chmodSync(join(tree, path), 0o755);
    for (const path of ['PG_VERSION', 'base/1/1259']) chmodSync(join(tree, path), 0o666);

    await restrictTree(tree);

    for (const path of ['', 'base', 'base/1']) expect(statSync(join(tree, path)).mode & 0o777).toBe(0o700);
    for (const path of ['PG_VERSION', 'base/1/1259']) expect(statSync(join(tree, path)).mode & 0o777).toBe(0o600);
    expect(statSync(outside).mode & 0o777).toBe(0o644);
  });
});
