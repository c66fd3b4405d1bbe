/**
 * Jest setup (setupFilesAfterEnv): `toEqual(new EngineError(category, message))` compares the
 * category too. Jest's own Error equality looks at the message (and name) only, so a test could
 * expect `not_found` and pass on a `validation` error with the same text, while hosts branch on
 * nothing but the category. An EngineError never equals an error that is not one.
 */
function isEngineError(value: unknown): value is Error & { readonly category: unknown } {
  return value instanceof Error && value.name === 'EngineError' && 'category' in value;
}

function engineErrorEquality(a: unknown, b: unknown): boolean | undefined {
  const left = isEngineError(a);
  const right = isEngineError(b);
  if (!left && !right) return undefined;
  if (!(a instanceof Error) || !(b instanceof Error)) return undefined; // asymmetric matchers, other values
  return left && right && a.category === b.category && a.message === b.message;
}

// Jest 30 has addEqualityTesters; the installed typings predate it.
(expect as unknown as { addEqualityTesters(testers: ((a: unknown, b: unknown) => boolean | undefined)[]): void }).addEqualityTesters([
  engineErrorEquality,
]);
