/**
 * Runs `count` tasks with an ordinal window: task i starts only after task i - W
 * has finished, so the running tasks are always the W lowest unfinished ones. The ordered writer
 * drains by ordinal, so the step it waits for is always running: no deadlock.
 */
export async function runInOrdinalWindow(
  count: number,
  width: number,
  signal: AbortSignal,
  task: (index: number) => Promise<void>,
): Promise<void> {
  const window = Math.max(1, width);
  const finished: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const gate = i >= window ? finished[i - window] : Promise.resolve();
    // Tasks record their own failures; a step that has not started when the run aborts never starts.
    finished.push(gate.then(() => (signal.aborted ? undefined : task(i))).catch(() => undefined));
  }
  await Promise.all(finished);
}
