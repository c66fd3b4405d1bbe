import { createHmac, timingSafeEqual } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/** Header names of the signed-message envelope (version v1). */
export const ENVELOPE_HEADERS = Object.freeze({
  jobId: 'jobId',
  requestId: 'X-Request-Id',
  retryCount: 'x-retry-count',
  tenantId: 'X-Tenant-ID',
  signature: 'x-message-signature',
  timestamp: 't',
  version: 'signature-version',
});

/** How far a signature timestamp may lie in the future (clock skew) and in the past (queue delay). */
export const ENVELOPE_MAX_FUTURE_SEC = 30;
export const ENVELOPE_MAX_AGE_SEC = 300;

export interface SignEnvelopeInput {
  readonly key: Buffer;
  /** Unix seconds. */
  readonly t: number | string;
  readonly tenantId: string;
  readonly jobId: string;
  readonly exchange: string;
  readonly routingKey: string;
  readonly body: Buffer;
}

/**
 * Lower-case hex HMAC-SHA256 over `"{t}\nv1\n{tenantId}\n{jobId}\n{exchange}\n{routingKey}\n"` followed by
 * the raw body. Binding the exchange and routing key means a message replayed elsewhere does not verify.
 */
export function signEnvelope(input: SignEnvelopeInput): string {
  return hmacV1(input.key, String(input.t), 'v1', input.tenantId, input.jobId, input.exchange, input.routingKey, input.body);
}

export interface EnvelopeHeadersInput {
  readonly key: Buffer;
  readonly tenantId: string;
  readonly exchange: string;
  readonly routingKey: string;
  readonly body: Buffer;
  /** MUST equal the body's top-level `jobId`: that is what the receiver signs with. */
  readonly jobId: string;
  readonly now: Date;
  /** The HTTP request id to carry along; a UUIDv7 is generated when absent. */
  readonly requestId?: string;
  /** Other headers to send (trace context, CloudEvents). Envelope headers in it are replaced. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/**
 * The AMQP headers of a signed message. Any envelope header already in `extra` (in any letter case) is
 * removed first, so a forwarded message never carries a stale signature or timestamp.
 */
export function envelopeHeaders(input: EnvelopeHeadersInput): Record<string, unknown> {
  const bodyJobId = jobIdOfBody(input.body);
  if (bodyJobId !== input.jobId) throw new Error('envelopeHeaders: jobId differs from the body\'s top-level jobId');
  const replaced = new Set(Object.values(ENVELOPE_HEADERS).map((name) => name.toLowerCase()));
  const headers: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input.extra ?? {})) {
    if (!replaced.has(name.toLowerCase())) headers[name] = value;
  }
  const t = String(Math.floor(input.now.getTime() / 1000));
  headers[ENVELOPE_HEADERS.jobId] = input.jobId;
  headers[ENVELOPE_HEADERS.requestId] = input.requestId && input.requestId !== '' ? input.requestId : uuidv7();
  headers[ENVELOPE_HEADERS.retryCount] = 0;
  if (input.tenantId !== '') headers[ENVELOPE_HEADERS.tenantId] = input.tenantId;
  headers[ENVELOPE_HEADERS.signature] = signEnvelope({ ...input, t });
  headers[ENVELOPE_HEADERS.timestamp] = t;
  headers[ENVELOPE_HEADERS.version] = 'v1';
  return headers;
}

export type EnvelopeRejection = 'missing_signature' | 'bad_timestamp' | 'future_timestamp' | 'expired' | 'bad_version' | 'mismatch';

export type VerifyEnvelopeResult =
  | { ok: true; tenantId: string; jobId: string; t: number; legacy: boolean }
  /** `authentic`: the HMAC matched although a time check failed (an expired but genuine job). */
  | { ok: false; reason: EnvelopeRejection; authentic: boolean };

export interface VerifyEnvelopeInput {
  /** Internal HMAC keys, current first, then the previous keys still on the ring. */
  readonly keys: readonly Buffer[];
  readonly headers: Readonly<Record<string, unknown>> | undefined;
  readonly body: Buffer;
  readonly exchange: string;
  readonly routingKey: string;
  readonly now: Date;
  /** Also accept the original's older signature, HMAC over `"{t}." + body`. */
  readonly allowLegacyBodySignature?: boolean;
}

/**
 * Checks a delivery's envelope with the values as delivered. The HMAC is always computed, even when a
 * time check has already failed, so that a stale genuine message can be told from a forged one.
 * Never throws.
 */
export function verifyEnvelope(input: VerifyEnvelopeInput): VerifyEnvelopeResult {
  const headers = input.headers ?? {};
  const signature = header(headers, ENVELOPE_HEADERS.signature);
  if (typeof signature !== 'string' || signature === '') return { ok: false, reason: 'missing_signature', authentic: false };

  const t = parseTimestamp(header(headers, ENVELOPE_HEADERS.timestamp));
  if (t === undefined) return { ok: false, reason: 'bad_timestamp', authentic: false };

  const rawTenant = header(headers, ENVELOPE_HEADERS.tenantId);
  const tenantId = typeof rawTenant === 'string' ? rawTenant : '';
  const jobId = jobIdOfBody(input.body);
  const version = header(headers, ENVELOPE_HEADERS.version);
  const given = Buffer.from(signature.toLowerCase(), 'utf8');

  const v1Match = version === 'v1'
    && input.keys.some((key) => sameBytes(given, hmacV1(key, String(t), 'v1', tenantId, jobId, input.exchange, input.routingKey, input.body)));
  const legacyMatch = !v1Match && input.allowLegacyBodySignature === true
    && (version === 'v1' || version === undefined)
    && input.keys.some((key) => sameBytes(given, hmacLegacy(key, String(t), input.body)));
  const authentic = v1Match || legacyMatch;

  const nowMs = input.now.getTime();
  if (t * 1000 > nowMs + ENVELOPE_MAX_FUTURE_SEC * 1000) return { ok: false, reason: 'future_timestamp', authentic };
  if (t * 1000 < nowMs - ENVELOPE_MAX_AGE_SEC * 1000) return { ok: false, reason: 'expired', authentic };
  // Older senders set no version header and can only be accepted through the legacy fallback.
  if (version !== 'v1' && !legacyMatch) return { ok: false, reason: 'bad_version', authentic: false };
  if (!authentic) return { ok: false, reason: 'mismatch', authentic: false };
  return { ok: true, tenantId, jobId, t, legacy: legacyMatch };
}

/** The body's top-level `jobId` string, or `""` when the body is not a JSON object or has none. */
export function jobIdOfBody(body: Buffer): string {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const jobId = (parsed as Record<string, unknown>).jobId;
      if (typeof jobId === 'string') return jobId;
    }
  } catch {
    // Not JSON: the signature then binds an empty job id, as the sender's did.
  }
  return '';
}

function hmacV1(key: Buffer, t: string, version: string, tenantId: string, jobId: string, exchange: string, routingKey: string, body: Buffer): string {
  return createHmac('sha256', key).update(`${t}\n${version}\n${tenantId}\n${jobId}\n${exchange}\n${routingKey}\n`, 'utf8').update(body).digest('hex');
}

function hmacLegacy(key: Buffer, t: string, body: Buffer): string {
  return createHmac('sha256', key).update(`${t}.`, 'utf8').update(body).digest('hex');
}

function sameBytes(given: Buffer, expectedHex: string): boolean {
  const expected = Buffer.from(expectedHex, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Integer Unix seconds from a decimal string or a number; undefined for anything else. */
function parseTimestamp(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'string' && /^-?\d{1,15}$/.test(value)) return Number(value);
  return undefined;
}

// AMQP header names are case-sensitive, but senders differ in case; the exact name wins.
function header(headers: Readonly<Record<string, unknown>>, name: string): unknown {
  if (name in headers) return headers[name];
  const lower = name.toLowerCase();
  const found = Object.keys(headers).find((key) => key.toLowerCase() === lower);
  return found === undefined ? undefined : headers[found];
}
