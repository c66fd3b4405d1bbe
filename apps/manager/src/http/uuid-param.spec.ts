import { AppError } from '../errors/app-error';
import { parseLenientUuid, requireIdParam } from './uuid-param';

describe(parseLenientUuid.name, () => {
  const id = '0192a3b4-c5d6-7e8f-9a0b-1c2d3e4f5a6b';

  it.each([id, id.toUpperCase(), `{${id}}`, `urn:uuid:${id}`, `URN:UUID:${id.toUpperCase()}`, id.replace(/-/g, ''), id.replace(/-/g, '').toUpperCase()])(
    'normalises %s to the lower-case canonical form',
    (form) => expect(parseLenientUuid(form)).toBe(id),
  );

  it.each(['', 'x', `${id}0`, id.slice(1), `{${id}`, `(${id})`, id.replace(/-/g, '_'), 'g'.repeat(32), `urn:uuid:{${id}}`])('refuses %s', (form) =>
    expect(parseLenientUuid(form)).toBeUndefined(),
  );

  it('answers 400/FET-0404 naming the entity', () => {
    expect(() => requireIdParam('nope', 'job')).toThrow(AppError);
    expect(() => requireIdParam('nope', 'job')).toThrow('invalid job id');
    expect(() => requireIdParam(undefined, 'connection')).toThrow('invalid connection id');
  });
});
