/** The time source of every decision the Worker makes (lease expiry, completion times). */
export interface Clock {
  now(): Date;
}
export const CLOCK = Symbol('Clock');

export const systemClock: Clock = { now: () => new Date() };
