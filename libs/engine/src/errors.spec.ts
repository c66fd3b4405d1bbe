import { inspect } from 'node:util';
import { connectReasonOf, EngineError, ErrorText, keptReason, type ConnectReason } from './errors';

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

describe('connect reasons', () => {
  it('carries a known reason, shows it in JSON but not in the text, and drops an unknown one', () => {
    const error = new EngineError('connect', ErrorText.connectFailed, new Error('driver text'), { reason: 'authentication' });
    expect(error.reason).toBe('authentication');
    expect(String(error)).toBe('engine: [connect] failed to connect to datasource');
    expect(JSON.stringify(error)).toBe('{"name":"EngineError","category":"connect","message":"failed to connect to datasource","reason":"authentication"}');
    const unknown = new EngineError('connect', ErrorText.connectFailed, undefined, { reason: 'driver says no' as ConnectReason });
    expect(unknown.reason).toBeUndefined();
    expect(JSON.stringify(unknown)).not.toContain('reason');
  });

  it('finds the first reason down the cause chain and keeps it for a re-made error', () => {
    const inner = new EngineError('connect', ErrorText.connectFailed, undefined, { reason: 'refused' });
    const outer = new EngineError('connect', ErrorText.connectFailed, new Error('wrap', { cause: inner }));
    expect(connectReasonOf(outer)).toBe('refused');
    expect(connectReasonOf(new Error('none'))).toBeUndefined();
    expect(keptReason(outer)).toEqual({ reason: 'refused' });
    expect(keptReason('not an error')).toEqual({});
  });
});
