import type { Clock } from '../ports/clock.port';

export class FakeClock implements Clock {
  #now: number;
  constructor(iso: string) {
    this.#now = Date.parse(iso);
  }
  now(): Date {
    return new Date(this.#now);
  }
  advance(ms: number): void {
    this.#now += ms;
  }
}
