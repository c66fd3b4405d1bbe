/**
 * The structured `code` a driver sets on its errors (mysql2's `ER_*`, tedious's `ETIMEOUT`), so that
 * failures are classified by code, never by message text. `undefined` when there is none.
 */
export function driverErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
