/** The source of "now" for handlers, so tests can pin timestamps. */
export interface Clock {
  now(): Date;
}
export const CLOCK = Symbol('Clock');
export const SYSTEM_CLOCK: Clock = Object.freeze({ now: () => new Date() });
