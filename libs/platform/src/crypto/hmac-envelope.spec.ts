import { createHmac } from 'node:crypto';
import { envelopeHeaders, signEnvelope, verifyEnvelope, type VerifyEnvelopeInput } from './hmac-envelope';

const key = Buffer.alloc(32, 0x11);
const oldKey = Buffer.alloc(32, 0x22);
const jobId = '0193a1b2-0000-7000-8000-000000000001';
const body = Buffer.from(`{"createdAt":"2026-11-29T10:00:00.123Z","jobId":"${jobId}","mappedFields":{}}`);
const queue = 'fetcher.extract-external-data.queue';
const now = new Date('2026-11-29T10:00:00.000Z');
const nowSec = now.getTime() / 1000;

describe(signEnvelope.name, () => {
  it('signs "{t}\\nv1\\n{tenant}\\n{job}\\n{exchange}\\n{routingKey}\\n" followed by the body', () => {
    const expected = createHmac('sha256', key).update(Buffer.concat([Buffer.from(`${nowSec}\nv1\nt-1\n${jobId}\n\n${queue}\n`), body])).digest('hex');
    expect(signEnvelope({ key, t: nowSec, tenantId: 't-1', jobId, exchange: '', routingKey: queue, body })).toBe(expected);
    expect(signEnvelope({ key, t: String(nowSec), tenantId: 't-1', jobId, exchange: '', routingKey: queue, body })).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe(envelopeHeaders.name, () => {
  it('replaces stale envelope headers, keeps the others and sets its own', () => {
    const headers = envelopeHeaders({
      key, tenantId: '', exchange: '', routingKey: queue, body, jobId, now, requestId: 'req-1',
      extra: { traceparent: '00-abc-def-01', 'x-message-signature': 'stale', T: '1', 'X-TENANT-ID': 'other', 'x-retry-count': 4 },
    });
    expect(headers).toEqual({
      traceparent: '00-abc-def-01', jobId, 'X-Request-Id': 'req-1', 'x-retry-count': 0,
      'x-message-signature': signEnvelope({ key, t: nowSec, tenantId: '', jobId, exchange: '', routingKey: queue, body }),
      t: String(nowSec), 'signature-version': 'v1',
    });
  });

  it('sets X-Tenant-ID only for a tenant, and generates a UUIDv7 request id when none is given', () => {
    const headers = envelopeHeaders({ key, tenantId: 'tenant-a', exchange: '', routingKey: queue, body, jobId, now });
    expect(headers['X-Tenant-ID']).toBe('tenant-a');
    expect(headers['X-Request-Id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('refuses a jobId that differs from the body, which the receiver could never verify', () => {
    expect(() => envelopeHeaders({ key, tenantId: '', exchange: '', routingKey: queue, body, jobId: 'other', now })).toThrow(/jobId/);
  });
});

describe(verifyEnvelope.name, () => {
  const signed = (at: Date, signWith = key, tenantId = '') =>
    envelopeHeaders({ key: signWith, tenantId, exchange: '', routingKey: queue, body, jobId, now: at });
  const verify = (headers: Record<string, unknown> | undefined, overrides: Partial<VerifyEnvelopeInput> = {}) =>
    verifyEnvelope({ keys: [key, oldKey], headers, body, exchange: '', routingKey: queue, now, ...overrides });
  const at = (offsetSec: number) => new Date(now.getTime() + offsetSec * 1000);

  it('accepts a fresh envelope and returns what it binds', () => {
    expect(verify(signed(now, key, 'tenant-a'))).toEqual({ ok: true, tenantId: 'tenant-a', jobId, t: nowSec, legacy: false });
  });

  it('accepts a signature made with a previous key of the ring', () => {
    expect(verify(signed(now, oldKey))).toMatchObject({ ok: true });
  });

  it.each([
    ['30 s ahead', 30, { ok: true }],
    ['31 s ahead', 31, { ok: false, reason: 'future_timestamp', authentic: true }],
    ['5 min old', -300, { ok: true }],
    ['5 min 1 s old', -301, { ok: false, reason: 'expired', authentic: true }],
  ])('applies the time window edge: %s', (_name, offset, expected) => {
    expect(verify(signed(at(offset)))).toMatchObject(expected);
  });

  it('tells a forged expired message from an authentic one', () => {
    expect(verify(signed(at(-600), Buffer.alloc(32, 0x33)))).toEqual({ ok: false, reason: 'expired', authentic: false });
  });

  it.each<[string, (h: Record<string, unknown>) => void, string]>([
    ['missing signature', (h) => delete h['x-message-signature'], 'missing_signature'],
    ['signature not a string', (h) => { h['x-message-signature'] = Buffer.from('ab'); }, 'missing_signature'],
    ['missing t', (h) => delete h.t, 'bad_timestamp'],
    ['fractional t', (h) => { h.t = '1.5'; }, 'bad_timestamp'],
    ['t as text', (h) => { h.t = 'yesterday'; }, 'bad_timestamp'],
    ['version v2', (h) => { h['signature-version'] = 'v2'; }, 'bad_version'],
    ['no version', (h) => delete h['signature-version'], 'bad_version'],
    ['other tenant', (h) => { h['X-Tenant-ID'] = 'intruder'; }, 'mismatch'],
    ['flipped signature char', (h) => { const s = h['x-message-signature'] as string; h['x-message-signature'] = (s[0] === 'a' ? 'b' : 'a') + s.slice(1); }, 'mismatch'],
    ['truncated signature', (h) => { h['x-message-signature'] = (h['x-message-signature'] as string).slice(0, 10); }, 'mismatch'],
  ])('rejects %s', (_name, tamper, reason) => {
    const headers = signed(now);
    tamper(headers);
    expect(verify(headers)).toMatchObject({ ok: false, reason });
  });

  it('accepts t as a number, and an upper-case hex signature', () => {
    const headers = signed(now);
    headers.t = nowSec;
    headers['x-message-signature'] = (headers['x-message-signature'] as string).toUpperCase();
    expect(verify(headers)).toMatchObject({ ok: true });
  });

  it('binds the body, the exchange and the routing key', () => {
    const headers = signed(now);
    expect(verify(headers, { body: Buffer.from(body.toString().replace('{}', '{"x":[]}')) })).toMatchObject({ reason: 'mismatch' });
    expect(verify(headers, { routingKey: 'fetcher.dlq' })).toMatchObject({ reason: 'mismatch' });
    expect(verify(headers, { exchange: 'fetcher.dlx' })).toMatchObject({ reason: 'mismatch' });
    expect(verify(headers, { keys: [Buffer.alloc(32, 9)] })).toMatchObject({ reason: 'mismatch' });
  });

  it('binds an empty job id for a body that is not JSON', () => {
    const raw = Buffer.from('not json');
    const headers = { 'x-message-signature': signEnvelope({ key, t: nowSec, tenantId: '', jobId: '', exchange: '', routingKey: queue, body: raw }), t: String(nowSec), 'signature-version': 'v1' };
    expect(verify(headers, { body: raw })).toEqual({ ok: true, tenantId: '', jobId: '', t: nowSec, legacy: false });
  });

  describe('legacy "{t}." + body signatures', () => {
    const legacyHeaders = (withVersion: boolean) => ({
      'x-message-signature': createHmac('sha256', oldKey).update(`${nowSec}.`).update(body).digest('hex'),
      t: String(nowSec),
      ...(withVersion ? { 'signature-version': 'v1' } : {}),
    });

    it('are refused unless the fallback is enabled', () => {
      expect(verify(legacyHeaders(true))).toEqual({ ok: false, reason: 'mismatch', authentic: false });
      expect(verify(legacyHeaders(false))).toEqual({ ok: false, reason: 'bad_version', authentic: false });
    });

    it('are accepted and flagged with the fallback, with or without a version header', () => {
      expect(verify(legacyHeaders(true), { allowLegacyBodySignature: true })).toMatchObject({ ok: true, legacy: true, jobId });
      expect(verify(legacyHeaders(false), { allowLegacyBodySignature: true })).toMatchObject({ ok: true, legacy: true });
    });

    it('still obey the time window', () => {
      expect(verify(legacyHeaders(true), { allowLegacyBodySignature: true, now: at(301) })).toEqual({ ok: false, reason: 'expired', authentic: true });
    });
  });

  it('never throws, whatever the headers hold', () => {
    for (const headers of [undefined, {}, { 'x-message-signature': 'x', t: {} }, { 'x-message-signature': '', t: '1' }]) {
      expect(verify(headers as Record<string, unknown> | undefined)).toMatchObject({ ok: false });
    }
  });
});
