/**
 * Waits until `condition` holds, letting the connector's asynchronous steps (microtasks and
 * immediates) run in between; never waits for a clock. Fails after 100 turns.
 */
export async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  if (!condition()) throw new Error('condition not reached');
}
