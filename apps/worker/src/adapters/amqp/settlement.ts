import type { DeliveryOutcome } from '../../jobs/delivery-outcome';

/** How a delivery is settled. `retry`: republish the same signed message with `x-retry-count` one higher, confirmed, then ack this one. */
export type Settlement = 'ack' | 'dead-letter' | 'retry';

/**
 * The settlement of what became of a delivery. Anything that is not an outcome (a handler that
 * answered nothing, or something else) dead-letters: a message is never requeued, so it cannot loop.
 */
export function settlementOf(outcome: unknown): Settlement {
  switch (kindOf(outcome)) {
    case 'handled':
      return 'ack';
    case 'try-again':
      return 'retry';
    default:
      return 'dead-letter';
  }
}

function kindOf(outcome: unknown): DeliveryOutcome['kind'] | undefined {
  if (typeof outcome !== 'object' || outcome === null || !('kind' in outcome)) return undefined;
  const { kind } = outcome;
  return kind === 'handled' || kind === 'refused' || kind === 'try-again' ? kind : undefined;
}
