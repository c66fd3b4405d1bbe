import type { Clock } from '../ports/clock.port';

/** A clock that moves only when told to. */
export class FakeClock implements Clock {
  #now: number;

  constructor(start: string | Date = '2026-01-01T00:00:00Z') {
    this.#now = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.#now);
  }

  advance(ms: number): void {
    this.#now += ms;
  }

  set(at: string | Date): void {
    this.#now = new Date(at).getTime();
  }
}
