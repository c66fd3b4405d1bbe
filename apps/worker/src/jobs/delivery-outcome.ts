/**
 * What became of a job delivery, in the Worker's terms. The transport decides what that means for
 * the message (acknowledged, dead-lettered, republished): `jobs/` never settles a message itself.
 */
export type DeliveryOutcome =
  /** The delivery did its part (the job ran, or already had, or runs elsewhere): nothing left to do with it. */
  | { readonly kind: 'handled' }
  /** Nothing can use the delivery again, or it must be kept for a look; `reason` is a metric label. */
  | { readonly kind: 'refused'; readonly reason: string }
  /** Infrastructure failed before the job could be settled: deliver the same message again later. */
  | { readonly kind: 'try-again' };

/** The outcomes a run can end with; trying again is the controller's call, not the run's. */
export type JobOutcome = Exclude<DeliveryOutcome, { readonly kind: 'try-again' }>;

export const HANDLED = { kind: 'handled' } as const satisfies JobOutcome;
export const TRY_AGAIN = { kind: 'try-again' } as const satisfies DeliveryOutcome;

export function refused(reason: string): JobOutcome {
  return { kind: 'refused', reason };
}
