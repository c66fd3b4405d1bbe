import { driverErrorCode } from './driver-error-code';

describe(driverErrorCode.name, () => {
  it('reads the string code a driver sets on its error', () => {
    expect(driverErrorCode(Object.assign(new Error('Timeout: Request failed to complete'), { code: 'ETIMEOUT' }))).toBe('ETIMEOUT');
    expect(driverErrorCode({ code: 'ER_NO_SUCH_TABLE' })).toBe('ER_NO_SUCH_TABLE');
  });

  it.each([
    ['an error without a code', new Error('boom')],
    ['a numeric code', { code: 11000 }],
    ['null', null],
    ['undefined', undefined],
    ['a string', 'ETIMEOUT'],
  ])('gives undefined for %s', (_what, error) => {
    expect(driverErrorCode(error)).toBeUndefined();
  });
});
