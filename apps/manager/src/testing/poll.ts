/** Re-evaluates `condition` until it holds or `timeoutMs` passes: a bounded wait on a condition, never a fixed sleep. */
export async function pollUntil<T>(condition: () => T | Promise<T>, timeoutMs = 10_000, everyMs = 25): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
