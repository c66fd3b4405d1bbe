/**
 * PostgreSQL errors classified by their SQLSTATE (the `code` of pg's DatabaseError), never by text.
 */
export function sqlState(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** 57014: a statement stopped by statement_timeout or by a cancel request. */
export function isQueryCanceled(error: unknown): boolean {
  return sqlState(error) === '57014';
}
