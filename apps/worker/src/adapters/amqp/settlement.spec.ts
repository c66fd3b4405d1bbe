import { HANDLED, refused, TRY_AGAIN } from '../../jobs/delivery-outcome';
import { settlementOf } from './settlement';

describe(settlementOf.name, () => {
  it.each([
    ['handled', HANDLED, 'ack'],
    ['refused', refused('engine_unavailable'), 'dead-letter'],
    ['try again', TRY_AGAIN, 'retry'],
    ['no answer', undefined, 'dead-letter'],
    ['a settlement, not an outcome', 'ack', 'dead-letter'],
    ['an unknown kind', { kind: 'ack' }, 'dead-letter'],
    ['null', null, 'dead-letter'],
  ])('%s', (_name, outcome, settlement) => {
    expect(settlementOf(outcome)).toBe(settlement);
  });
});
