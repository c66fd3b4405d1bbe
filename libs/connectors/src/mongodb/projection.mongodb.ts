/**
 * The find projection for a table's requested fields.
 */
import type { Document } from 'mongodb';
import { compareUtf8 } from '@fetcher/engine';

/**
 * `undefined` (no projection: whole documents) when the request names exactly the snapshot's
 * fields, which is what the planner expands `*` into. Otherwise an inclusion projection of the
 * requested fields plus `_id`. A dotted field (`a.b`) projects that path and the server returns
 * it nested (`{a: {b: ...}}`). Paths covered by a requested parent are dropped, and any `_id.x`
 * widens to `_id`, because the server rejects overlapping paths and `_id` is always whole.
 */
export function projectionFor(requested: readonly string[], snapshotFields: readonly string[]): Document | undefined {
  if (sameFieldSet(requested, snapshotFields)) return undefined;
  const paths = new Set<string>(['_id']);
  for (const field of requested) paths.add(field === '_id' || field.startsWith('_id.') ? '_id' : field);
  const projection: Document = {};
  for (const path of [...paths].sort(compareUtf8)) {
    if (hasCoveringParent(path, paths)) continue;
    Object.defineProperty(projection, path, { value: 1, writable: true, enumerable: true, configurable: true });
  }
  return projection;
}

function sameFieldSet(requested: readonly string[], snapshotFields: readonly string[]): boolean {
  if (snapshotFields.length === 0) return false;
  const wanted = new Set(requested);
  const all = new Set(snapshotFields);
  return wanted.size === all.size && [...all].every((field) => wanted.has(field));
}

function hasCoveringParent(path: string, paths: ReadonlySet<string>): boolean {
  for (let dot = path.indexOf('.'); dot > 0; dot = path.indexOf('.', dot + 1)) {
    if (paths.has(path.slice(0, dot))) return true;
  }
  return false;
}
