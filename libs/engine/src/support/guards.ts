/** Shape checks for values that cross the engine boundary untyped (host input, port results). */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** An object (any prototype) that is not an array: what a port or options bag may be. */
export function isObjectLike(value: unknown): value is Record<string, unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && !Array.isArray(value);
}

export function isNonBlankString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

export function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** Own enumerable keys of a plain object, read once: getters and proxies cannot change answers mid-way. */
export function ownEntries(value: Record<string, unknown>): [string, unknown][] {
  return Object.keys(value).map((key) => [key, value[key]]);
}

/**
 * Sets an own, enumerable property. Table, field and operator names come from requests, and plain
 * assignment of `__proto__` changes the prototype instead: the name vanished from plans.
 */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** An own property only: `__proto__` must not read the prototype. */
export function getOwn(source: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(source, key) ? source[key] : undefined;
}
