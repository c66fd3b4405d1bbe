import type pino from 'pino';
import { pinoHttp } from 'pino-http';
import { Writable } from 'node:stream';
import { loggerModuleOptions } from './logger-options';

type PinoOptions = pino.LoggerOptions & { serializers: Record<string, (value: unknown) => unknown> };

/**
 * The options both apps hand to pino, with lines collected instead of written to stdout. The logger
 * is built as the apps build theirs: by pino-http, which wraps the `err` serializer.
 */
function setup() {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk: Buffer, _enc, done) { lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)); done(); } });
  const [options] = loggerModuleOptions({ level: 'info', service: 'manager', destination: sink }).pinoHttp as [PinoOptions, Writable];
  return { lines, options, logger: pinoHttp(options, sink).logger };
}

function hostileValues(): [string, unknown][] {
  const cyclic: Record<string, unknown> = { name: 'Cyclic', message: 'loop' };
  cyclic.self = cyclic;
  const throwingGetter = Object.defineProperty({}, 'message', { enumerable: true, get: () => { throw new Error('getter'); } });
  const throwingName = new Error('boom');
  Object.defineProperty(throwingName, 'name', { get: () => { throw new Error('getter'); } });
  const proxy = new Proxy({}, { ownKeys: () => { throw new Error('trap'); }, get: () => { throw new Error('trap'); } });
  let deep: Record<string, unknown> = { message: 'bottom' };
  for (let i = 0; i < 10_000; i++) deep = { inner: deep };
  const wide = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]));
  const nonStringMessage = new Error('x');
  (nonStringMessage as unknown as { message: unknown }).message = { nested: 'password=hunter2' };
  return [
    ['an object without message (what the error filter logs)', { type: 'TypeError', category: 'internal' }],
    ['undefined', undefined],
    ['null', null],
    ['a string', 'password=hunter2'],
    ['a number', 42],
    ['a cycle', cyclic],
    ['a throwing message getter', throwingGetter],
    ['an Error whose name getter throws', throwingName],
    ['a proxy whose traps throw', proxy],
    ['an object 10 000 levels deep', deep],
    ['an object with 100 000 keys', wide],
    ['an Error with a non-string message', nonStringMessage],
    ['a huge message', new Error(`x${'y'.repeat(5_000_000)}`)],
  ];
}

// Labels only go through it.each: jest formats its arguments, and some of these values defeat that.
const LABELS = hostileValues().map(([label]) => label);
const valueOf = (label: string): unknown => hostileValues().find(([l]) => l === label)![1];

describe('the err serializer of loggerModuleOptions', () => {
  it.each(LABELS)('never throws for %s', (label) => {
    const value = valueOf(label);
    const { options } = setup();
    expect(() => options.serializers.err(value)).not.toThrow();
  });

  it('keeps the type and category of what the error filter logs, and masks secrets in messages', () => {
    const { options } = setup();
    expect(options.serializers.err({ type: 'TypeError', category: 'internal' })).toEqual({ type: 'TypeError', category: 'internal' });
    expect(options.serializers.err(new TypeError('failed for postgres://u:hunter2@db/x'))).toEqual({ type: 'TypeError', message: 'failed for postgres://[REDACTED]@db/x' });
  });
});

describe('a logger built from loggerModuleOptions', () => {
  it.each(LABELS)('writes the line when `err` is %s', (label) => {
    const value = valueOf(label);
    const { logger, lines } = setup();
    expect(() => logger.error({ err: value }, 'unhandled error')).not.toThrow();
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 50, msg: 'unhandled error' });
    expect(lines[0]).not.toContain('hunter2');
    expect(lines[0].length).toBeLessThan(64 * 1024);
  });

  it('writes the line when the logged object itself is hostile', () => {
    const { logger, lines } = setup();
    for (const [, value] of hostileValues()) logger.error({ detail: value }, 'odd detail');
    expect(lines).toHaveLength(hostileValues().length);
    expect(lines.join('\n')).not.toContain('hunter2');
  });

  it('keeps the type of a logged Error', () => {
    const { logger, lines } = setup();
    logger.error({ err: new RangeError('out of range') }, 'failed');
    expect(JSON.parse(lines[0])).toMatchObject({ err: { type: 'RangeError', message: 'out of range' } });
  });
});
