import { inspect } from 'node:util';
import { EngineError, ErrorText } from './errors';

describe(EngineError.name, () => {
  const secret = 'postgres://admin:hunter2@db.internal:5432/app';
  const sut = () => new EngineError('connect', ErrorText.connectFailed, new Error(`dial failed: ${secret}`));

  it('renders as "engine: [<category>] <message>"', () => {
    expect(String(sut())).toBe('engine: [connect] failed to connect to datasource');
  });

  it('keeps the cause reachable through the property', () => {
    expect((sut().cause as Error).message).toContain('hunter2');
  });

  it.each([
    ['util.inspect', (e: EngineError) => inspect(e, { depth: 10 })],
    ['JSON.stringify', (e: EngineError) => JSON.stringify(e)],
    ['toString', (e: EngineError) => e.toString()],
    ['a template literal', (e: EngineError) => `${String(e)}`],
    ['inspect of an object holding it', (e: EngineError) => inspect({ error: e }, { depth: 10 })],
  ])('never prints the cause through %s', (_name, render) => {
    const text = render(sut());
    expect(text).toContain('failed to connect to datasource');
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('db.internal');
  });

  it('renders an unknown category as internal', () => {
    expect(new EngineError('bogus' as never, 'x').category).toBe('internal');
  });
});
