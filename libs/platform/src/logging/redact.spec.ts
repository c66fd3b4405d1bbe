import { redactObject, redactSecrets, redactUrls } from './redact';

describe(redactUrls.name, () => {
  it.each([
    ['mongodb://app:p%40ss@db:27017/x', 'mongodb://[REDACTED]@db:27017/x'],
    ['failed: amqps://guest@rabbit and postgres://u:p@h/db', 'failed: amqps://[REDACTED]@rabbit and postgres://[REDACTED]@h/db'],
    ['https://example.com/a@b', 'https://example.com/a@b'],
  ])('masks %s', (text, expected) => expect(redactUrls(text)).toBe(expected));
});

describe(redactSecrets.name, () => {
  it.each([
    ['host=db password=hunter2 user=x', 'host=db password=[REDACTED] user=x'],
    ['{"password":"hunter2","user":"x"}', '{"password":"[REDACTED]","user":"x"}'],
    ['Server=x;Pwd=hunter2;', 'Server=x;Pwd=[REDACTED];'],
    ['Authorization: Bearer eyJhbGciOi.x.y', 'Authorization: Bearer [REDACTED]'],
    ['-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY----- tail', '[REDACTED] tail'],
  ])('masks %j', (text, expected) => expect(redactSecrets(text)).toBe(expected));

  it('masks extra literals, longest first, and ignores very short ones', () => {
    expect(redactSecrets('login as bob with s3cr3t-long (s3cr3t)', ['s3cr3t', 's3cr3t-long', 'a'])).toBe('login as bob with [REDACTED] ([REDACTED])');
  });
});

describe(redactObject.name, () => {
  it('masks secret keys at any depth, TLS material under ssl/tls, buffers and secret text', () => {
    const input = {
      connection: { host: 'db', password: 'hunter2', ssl: { mode: 'verify-full', ca: 'PEM', cert: 'PEM', key: 'PEM' } },
      headers: { Authorization: 'Bearer x', 'x-request-id': 'r1' },
      dsn: 'postgres://u:p@h/db',
      note: 'tried mongodb://u:hunter2@h',
      material: Buffer.from('key bytes'),
      list: [{ token: 't' }],
      error: new Error('password=hunter2 rejected'),
      s3: { key: 'external-data/1.json' },
    };
    expect(redactObject(input)).toEqual({
      connection: { host: 'db', password: '[REDACTED]', ssl: { mode: 'verify-full', ca: '[REDACTED]', cert: '[REDACTED]', key: '[REDACTED]' } },
      headers: { Authorization: '[REDACTED]', 'x-request-id': 'r1' },
      dsn: '[REDACTED]',
      note: 'tried mongodb://[REDACTED]@h',
      material: '[REDACTED]',
      list: [{ token: '[REDACTED]' }],
      error: { type: 'Error', message: 'password=[REDACTED] rejected' },
      s3: { key: 'external-data/1.json' },
    });
  });

  it('survives cycles', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a.self = a;
    expect(redactObject(a)).toEqual({ name: 'a', self: '[Circular or too deep]' });
  });
});
