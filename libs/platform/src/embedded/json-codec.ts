import { types } from 'node:util';

/**
 * JSON that keeps `Date` values as dates across a write and a read: a date is stored as
 * `{"$date":"<ISO>"}`. Everything else is plain JSON, so the files stay readable by people and by
 * other tools (the CLI reads `status`, `resultPath` and `resultHmac` of a job record).
 */
export function encodeRecord(value: unknown): string {
  return JSON.stringify(value, function replacer(this: Record<string, unknown>, key: string, current: unknown) {
    const raw = key === '' ? value : this[key];
    // `types.isDate`, not `instanceof`: a structured clone's dates may come from another realm.
    return types.isDate(raw) ? { $date: raw.toISOString() } : current;
  });
}

export function decodeRecord<T>(text: string): T {
  return JSON.parse(text, (_key, current: unknown) => {
    if (current !== null && typeof current === 'object' && !Array.isArray(current)) {
      const keys = Object.keys(current);
      const date = (current as { $date?: unknown }).$date;
      if (keys.length === 1 && typeof date === 'string') return new Date(date);
    }
    return current;
  }) as T;
}
