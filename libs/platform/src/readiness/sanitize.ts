/** Longest error text a readiness check reports. */
export const MAX_CHECK_ERROR_CHARS = 512;

/**
 * Probe error text for the readiness body: credentials in URLs (`user:pass@` -> `***@`) and
 * `password=`/`passwd=`/`pwd=` values (-> `=***`) are masked, whitespace collapsed, and the text cut.
 */
export function sanitizeCheckError(text: string): string {
  const masked = text
    .replace(/[^\s/@:]+:[^\s/@]*@/g, '***@')
    .replace(/\b(password|passwd|pwd)(\s*)=(\s*)("[^"]*"|'[^']*'|[^\s;&,]*)/gi, '$1$2=***')
    .replace(/\s+/g, ' ')
    .trim();
  return masked.length > MAX_CHECK_ERROR_CHARS ? masked.slice(0, MAX_CHECK_ERROR_CHARS) : masked;
}

/** The message of anything thrown, never its stack. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return typeof error === 'string' ? error : 'unknown error';
}
