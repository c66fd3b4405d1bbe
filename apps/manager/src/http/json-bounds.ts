/**
 * How deep a request body may nest, the root object being level 1. The deepest documented shape, a
 * job filter value, sits at level 8; metadata may nest 30 levels below its own object. Deeper
 * bodies are refused at the parse stage: recursive code further on (the request hash, BSON) would
 * otherwise overflow its stack, and the Worker could not run what the Manager accepted.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Whether a parsed JSON value is one the service can represent: no number outside the double
 * range (`1e400` parses to Infinity, which no JSON text, hash or store can carry) and no nesting
 * beyond MAX_JSON_DEPTH. Iterative, so no input can exhaust the stack.
 */
export function withinJsonBounds(root: unknown): boolean {
  const pending: [unknown, number][] = [[root, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, depth] = next;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return false;
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_JSON_DEPTH) return false;
    for (const member of Array.isArray(value) ? (value as unknown[]) : Object.values(value)) pending.push([member, depth + 1]);
  }
  return true;
}

/** Whether any object key at any depth contains U+0000, which no store or SQL identifier accepts. */
export function hasNulKey(root: unknown): boolean {
  const pending: unknown[] = [root];
  for (let value = pending.pop(); value !== undefined; value = pending.pop()) {
    if (typeof value !== 'object' || value === null) continue;
    if (!Array.isArray(value) && Object.keys(value).some((key) => key.includes('\u0000'))) return true;
    // A loop, not a spread: a spread of a million-item array overflows the argument limit.
    for (const member of Array.isArray(value) ? (value as unknown[]) : Object.values(value)) pending.push(member);
  }
  return false;
}
