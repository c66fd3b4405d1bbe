/**
 * Hostile work-queue messages, each with the outcome the Worker owes it: the `reason` it must be
 * dead-lettered with (`fetcher_worker_messages_rejected_total{reason}` and the warning line). Built
 * from the message contract (envelope v1 headers, body `createdAt`, `filters`, `jobId`,
 * `mappedFields`, `metadata`) and signed here with node:crypto, independently of the platform code.
 *
 * Families: envelope faults (missing, mistyped and forged signatures, timestamps outside the window
 * or of the wrong type, versions, a tenant header the signature does not cover, tampered bodies),
 * bodies signed with the real key but broken (every field of the schema with every wrong JSON type,
 * missing and empty fields, truncations, invalid JSON and UTF-8, huge bodies, other encodings and
 * content types), and well-formed messages for jobs that do not exist. Every job id is fresh, so no
 * hostile message can name a real job; `fast-check` draws the values, reproducibly from a seed.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';

/** The rejection reasons the Worker reports for messages it cannot use. */
export type RejectionReason =
  | 'missing_signature'
  | 'bad_timestamp'
  | 'future_timestamp'
  | 'expired'
  | 'bad_version'
  | 'mismatch'
  | 'malformed_json'
  | 'malformed_null'
  | 'malformed_job_id'
  | 'malformed_mapped_fields'
  | 'malformed_tables'
  | 'job_not_found';

export interface HostileMessage {
  /** What was done to it, e.g. `body:wrong-type:mappedFields:string`. */
  readonly kind: string;
  readonly body: Buffer;
  readonly headers: Record<string, unknown>;
  readonly contentType?: string;
  readonly contentEncoding?: string;
  readonly expected: RejectionReason;
}

export interface HostileContext {
  /** The Worker's internal HMAC key (what the Manager signs with). */
  readonly key: Buffer;
  /** The work queue: the routing key the signature binds. */
  readonly queue: string;
  /** A datasource and table of a valid request. */
  readonly datasource: string;
  readonly table: string;
  /** Unix seconds "now" for the signatures; defaults to the clock. */
  readonly now?: () => number;
}

const WINDOW_PAST_SEC = 300;

type JsonType = 'null' | 'boolean' | 'integer' | 'float' | 'string' | 'array' | 'object';
const JSON_TYPES: readonly JsonType[] = ['null', 'boolean', 'integer', 'float', 'string', 'array', 'object'];

/** A value of each JSON type, drawn at random (strings are never UUIDs, objects never empty). */
const VALUE_OF: Record<JsonType, fc.Arbitrary<unknown>> = {
  null: fc.constant(null),
  boolean: fc.boolean(),
  integer: fc.integer(),
  float: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
  string: fc.string({ maxLength: 40 }),
  array: fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null)), { maxLength: 4 }),
  object: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.oneof(fc.integer(), fc.string({ maxLength: 8 })), { minKeys: 1, maxKeys: 3 }),
};

/**
 * The body's schema as the Worker reads it: for each field, its type and the reason a value of each
 * wrong type earns (`undefined` stands for the field left out). Fields the Worker does not read
 * before it looks the job up (`createdAt`, the inside of `filters`) earn `job_not_found`.
 */
interface FieldRule {
  readonly path: readonly string[];
  readonly type: JsonType;
  readonly wrong: (type: JsonType | undefined) => RejectionReason;
  /** When leaving the field out empties its parent (the only datasource, the only table). */
  readonly missing?: RejectionReason;
}

const FIELD_RULES = (ds: string, table: string): readonly FieldRule[] => [
  { path: ['createdAt'], type: 'string', wrong: () => 'job_not_found' },
  { path: ['jobId'], type: 'string', wrong: () => 'malformed_job_id' },
  { path: ['mappedFields'], type: 'object', wrong: (t) => (t === 'null' || t === undefined ? 'malformed_mapped_fields' : 'malformed_json') },
  { path: ['mappedFields', ds], type: 'object', wrong: (t) => (t === 'null' ? 'malformed_tables' : 'malformed_json'), missing: 'malformed_mapped_fields' },
  { path: ['mappedFields', ds, table], type: 'array', wrong: (t) => (t === 'null' ? 'job_not_found' : 'malformed_json'), missing: 'malformed_tables' },
  { path: ['mappedFields', ds, table, '0'], type: 'string', wrong: () => 'malformed_json' },
  { path: ['metadata'], type: 'object', wrong: (t) => (t === 'null' || t === undefined ? 'job_not_found' : 'malformed_json') },
  { path: ['filters'], type: 'object', wrong: (t) => (t === 'null' || t === undefined ? 'job_not_found' : 'malformed_json') },
  { path: ['filters', ds], type: 'object', wrong: () => 'job_not_found' },
  { path: ['filters', ds, table, 'id', 'eq'], type: 'array', wrong: () => 'job_not_found' },
];

/** JSON with keys sorted at every depth, as the Manager writes bodies. */
export function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${sortedJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The top-level `jobId` string of a body, or `""`: what both ends sign with. */
function signedJobId(body: Buffer): string {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const jobId = (parsed as Record<string, unknown>).jobId;
      if (typeof jobId === 'string') return jobId;
    }
  } catch {
    // not JSON: an empty job id
  }
  return '';
}

export interface SignOptions {
  readonly t?: number | string;
  readonly tenantId?: string;
  readonly key?: Buffer;
  readonly version?: string;
  readonly jobId?: string;
}

/** Envelope v1: lower-case hex HMAC-SHA256 over `"t\nv1\ntenant\njobId\n\nqueue\n"` + body. */
export function signedHeaders(ctx: HostileContext, body: Buffer, options: SignOptions = {}): Record<string, unknown> {
  const t = String(options.t ?? nowSec(ctx));
  const tenant = options.tenantId ?? '';
  const jobId = options.jobId ?? signedJobId(body);
  const signature = createHmac('sha256', options.key ?? ctx.key).update(`${t}\n${options.version ?? 'v1'}\n${tenant}\n${jobId}\n\n${ctx.queue}\n`, 'utf8').update(body).digest('hex');
  return {
    jobId,
    'x-retry-count': 0,
    ...(tenant ? { 'X-Tenant-ID': tenant } : {}),
    'x-message-signature': signature,
    t,
    'signature-version': options.version ?? 'v1',
  };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const nowSec = (ctx: HostileContext): number => ctx.now?.() ?? Math.floor(Date.now() / 1000);

/** A valid body for a job id, as the Manager sends it. */
export function validBody(ctx: HostileContext, jobId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { createdAt: new Date().toISOString(), jobId, mappedFields: { [ctx.datasource]: { [ctx.table]: ['id'] } }, metadata: { source: 'hostile' }, ...extra };
}

const uuid = fc.uuid({ version: 4 });
const bytesOf = (value: unknown): Buffer => Buffer.from(sortedJson(value), 'utf8');

/** A copy of `body` with `path` set to `value` (`undefined`: removed), creating parents as objects. */
function withField(body: Record<string, unknown>, path: readonly string[], value: unknown): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
  let node: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (next === null || typeof next !== 'object') node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = path[path.length - 1];
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

/** A message signed with the real key over `body` as given. */
function signed(ctx: HostileContext, kind: string, body: Buffer, expected: RejectionReason, extra: Partial<HostileMessage> = {}): HostileMessage {
  return { kind, body, headers: signedHeaders(ctx, body), expected, ...extra };
}

/** Every field of the schema with every JSON type it must not have, left out, and (objects) empty. */
export function wrongTypeCases(ctx: HostileContext): fc.Arbitrary<HostileMessage>[] {
  const cases: fc.Arbitrary<HostileMessage>[] = [];
  const baseFilters = { [ctx.datasource]: { [ctx.table]: { id: { eq: [1] } } } };
  for (const rule of FIELD_RULES(ctx.datasource, ctx.table)) {
    const name = rule.path.join('.');
    const wrongTypes = JSON_TYPES.filter((t) => t !== rule.type && !(rule.type === 'float' && t === 'integer'));
    for (const type of wrongTypes) {
      // A string that is a UUID would be a right value for jobId; fast-check's strings never are.
      cases.push(fc.tuple(uuid, VALUE_OF[type]).map(([jobId, value]) => {
        const body = withField(validBody(ctx, jobId, { filters: baseFilters }), rule.path, value);
        return signed(ctx, `body:wrong-type:${name}:${type}`, bytesOf(body), rule.wrong(type));
      }));
    }
    // An array element cannot be left out (it would become an empty list, which is valid).
    if (/^\d+$/.test(rule.path[rule.path.length - 1])) continue;
    cases.push(uuid.map((jobId) => signed(ctx, `body:missing:${name}`, bytesOf(withField(validBody(ctx, jobId, { filters: baseFilters }), rule.path, undefined)), rule.missing ?? rule.wrong(undefined))));
  }
  cases.push(uuid.map((jobId) => signed(ctx, 'body:empty:mappedFields', bytesOf(validBody(ctx, jobId, { mappedFields: {} })), 'malformed_mapped_fields')));
  cases.push(uuid.map((jobId) => signed(ctx, 'body:empty:mappedFields.ds', bytesOf(validBody(ctx, jobId, { mappedFields: { [ctx.datasource]: {} } })), 'malformed_tables')));
  cases.push(fc.constantFrom('00000000-0000-0000-0000-000000000000', 'not-a-uuid', '').map((jobId) => signed(ctx, 'body:bad-value:jobId', bytesOf(validBody(ctx, jobId)), 'malformed_job_id')));
  return cases;
}

/** Bodies that are not JSON objects, or not JSON, or not UTF-8, all signed with the real key. */
export function brokenBodyCases(ctx: HostileContext): fc.Arbitrary<HostileMessage>[] {
  const valid = uuid.map((jobId) => Buffer.from(sortedJson(validBody(ctx, jobId)), 'utf8'));
  return [
    // A strict prefix of a JSON object is never JSON; the empty body included.
    valid.chain((bytes) => fc.integer({ min: 0, max: bytes.length - 1 }).map((n) => signed(ctx, 'body:truncated', bytes.subarray(0, n), 'malformed_json'))),
    fc.constant(signed(ctx, 'body:json-null', Buffer.from('null'), 'malformed_null')),
    fc.oneof(fc.boolean(), fc.integer(), fc.string({ maxLength: 20 }), fc.array(fc.integer(), { maxLength: 3 })).map((v) => signed(ctx, 'body:not-an-object', Buffer.from(JSON.stringify(v)), 'malformed_json')),
    // 0xff never occurs in UTF-8.
    fc.uint8Array({ maxLength: 64 }).map((b) => signed(ctx, 'body:invalid-utf8', Buffer.concat([Buffer.from([0xff]), Buffer.from(b)]), 'malformed_json')),
    valid.map((b) => signed(ctx, 'body:bom', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b]), 'malformed_json')),
    valid.map((b) => signed(ctx, 'body:utf16', Buffer.from(b.toString('utf8'), 'utf16le'), 'malformed_json', { contentEncoding: 'utf-16le' })),
    valid.map((b) => signed(ctx, 'body:gzip', gzipSync(b), 'malformed_json', { contentEncoding: 'gzip' })),
    valid.map((b) => signed(ctx, 'body:base64', Buffer.from(b.toString('base64')), 'malformed_json', { contentEncoding: 'base64' })),
    fc.string({ minLength: 1, maxLength: 60 }).filter((s) => !isJson(`{${s}`)).map((s) => signed(ctx, 'body:garbage-text', Buffer.from(`{${s}`), 'malformed_json')),
    uuid.map((jobId) => signed(ctx, 'body:trailing-garbage', Buffer.from(`${sortedJson(validBody(ctx, jobId))}}`), 'malformed_json')),
    // JSON.parse keeps the last duplicate key: here a valid-looking first jobId, then a bad one.
    uuid.map((jobId) => signed(ctx, 'body:duplicate-key', Buffer.from(`{"jobId":"${jobId}",${sortedJson(validBody(ctx, jobId)).slice(1, -1)},"jobId":7}`), 'malformed_job_id')),
  ];
}

/** Well-formed, correctly signed messages for jobs that do not exist, with odd properties. */
export function unknownJobCases(ctx: HostileContext): fc.Arbitrary<HostileMessage>[] {
  return [
    uuid.map((jobId) => signed(ctx, 'job:unknown', bytesOf(validBody(ctx, jobId)), 'job_not_found')),
    fc.tuple(uuid, fc.constantFrom('text/plain', 'application/xml', 'application/octet-stream', '')).map(([jobId, contentType]) =>
      signed(ctx, `job:unknown:content-type:${contentType || 'empty'}`, bytesOf(validBody(ctx, jobId)), 'job_not_found', { contentType })),
    // The Worker signs and reads bytes: an encoding label that does not match them changes nothing.
    uuid.map((jobId) => signed(ctx, 'job:unknown:content-encoding-label', bytesOf(validBody(ctx, jobId)), 'job_not_found', { contentEncoding: 'gzip' })),
    // Headers the Worker reads only on other paths, with the wrong types.
    fc.tuple(uuid, fc.oneof(VALUE_OF.integer, VALUE_OF.array, VALUE_OF.object, fc.constant(null))).map(([jobId, v]) => {
      const body = bytesOf(validBody(ctx, jobId));
      return { kind: 'job:unknown:header-types', body, headers: { ...signedHeaders(ctx, body), jobId: v, 'x-retry-count': v }, expected: 'job_not_found' as const };
    }),
    // The upper-case form of a job id names the same job.
    uuid.map((jobId) => signed(ctx, 'job:unknown:upper-case-id', bytesOf(validBody(ctx, jobId.toUpperCase())), 'job_not_found')),
  ];
}

/** A large body: a metadata string of `size` bytes, valid otherwise (job unknown) or cut short. */
export function hugeCase(ctx: HostileContext, size: number, truncated: boolean): fc.Arbitrary<HostileMessage> {
  return uuid.map((jobId) => {
    const full = bytesOf(validBody(ctx, jobId, { metadata: { source: 'hostile', pad: 'x'.repeat(size) } }));
    return truncated
      ? signed(ctx, `body:huge-truncated:${size}`, full.subarray(0, full.length - 2), 'malformed_json')
      : signed(ctx, `body:huge:${size}`, full, 'job_not_found');
  });
}

/** Deeply nested JSON in the metadata: parsed, then refused because the job is unknown. */
export function deepCase(ctx: HostileContext, depth: number): fc.Arbitrary<HostileMessage> {
  return uuid.map((jobId) => {
    const text = sortedJson(validBody(ctx, jobId)).replace('"metadata":{', `"metadata":{"d":${'['.repeat(depth)}${']'.repeat(depth)},`);
    return signed(ctx, `body:deep:${depth}`, Buffer.from(text), 'job_not_found');
  });
}

/** Faults of the envelope around a body that would otherwise be a valid message for an unknown job. */
export function envelopeCases(ctx: HostileContext): fc.Arbitrary<HostileMessage>[] {
  const body = uuid.map((jobId) => bytesOf(validBody(ctx, jobId)));
  const now = () => nowSec(ctx);
  const mutate = (kind: string, expected: RejectionReason, change: (h: Record<string, unknown>, b: Buffer) => Record<string, unknown>) =>
    body.map((b) => ({ kind, body: b, headers: change(signedHeaders(ctx, b), b), expected }));
  const mutateWith = <T>(kind: string, expected: RejectionReason, values: fc.Arbitrary<T>, change: (h: Record<string, unknown>, v: T, b: Buffer) => Record<string, unknown>) =>
    fc.tuple(body, values).map(([b, v]) => ({ kind, body: b, headers: change(signedHeaders(ctx, b), v, b), expected }));
  const without = (h: Record<string, unknown>, name: string) => Object.fromEntries(Object.entries(h).filter(([k]) => k !== name));
  const notAString = fc.oneof(VALUE_OF.null, VALUE_OF.boolean, VALUE_OF.integer, VALUE_OF.float, VALUE_OF.array, VALUE_OF.object, fc.uint8Array({ minLength: 1, maxLength: 32 }).map((b) => Buffer.from(b)));
  const notAnIntegerTimestamp = fc.oneof(
    VALUE_OF.null, VALUE_OF.boolean, VALUE_OF.float, VALUE_OF.array, VALUE_OF.object,
    fc.string({ maxLength: 20 }).filter((s) => !/^-?\d{1,15}$/.test(s)),
    fc.constantFrom('1e9', ' 1700000000', '0x10', '1234567890123456'),
  );
  const hex = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'));
  return [
    mutate('envelope:missing-signature', 'missing_signature', (h) => without(h, 'x-message-signature')),
    mutate('envelope:empty-signature', 'missing_signature', (h) => ({ ...h, 'x-message-signature': '' })),
    mutateWith('envelope:signature-wrong-type', 'missing_signature', notAString, (h, v) => ({ ...h, 'x-message-signature': v })),
    mutate('envelope:missing-timestamp', 'bad_timestamp', (h) => without(h, 't')),
    mutateWith('envelope:timestamp-wrong-type', 'bad_timestamp', notAnIntegerTimestamp, (h, v) => ({ ...h, t: v })),
    // Authentic but old: a replay from outside the window.
    fc.tuple(body, fc.integer({ min: WINDOW_PAST_SEC + 5, max: 30 * 86_400 })).map(([b, age]) => ({ kind: 'envelope:replay-expired', body: b, headers: signedHeaders(ctx, b, { t: now() - age }), expected: 'expired' as const })),
    // At least an hour ahead: a long run must not bring a message back inside the window.
    fc.tuple(body, fc.integer({ min: 3_600, max: 30 * 86_400 })).map(([b, ahead]) => ({ kind: 'envelope:future', body: b, headers: signedHeaders(ctx, b, { t: now() + ahead }), expected: 'future_timestamp' as const })),
    // Forged and stale: the time checks come before the signature's.
    fc.tuple(body, hex, fc.integer({ min: WINDOW_PAST_SEC + 5, max: 86_400 })).map(([b, sig, age]) => ({ kind: 'envelope:forged-expired', body: b, headers: { ...signedHeaders(ctx, b, { t: now() - age }), 'x-message-signature': sig }, expected: 'expired' as const })),
    mutate('envelope:missing-version', 'bad_version', (h) => without(h, 'signature-version')),
    mutateWith('envelope:version-wrong', 'bad_version', fc.oneof(notAString, fc.constantFrom('v0', 'v2', 'V1', 'v1 ', '')), (h, v) => ({ ...h, 'signature-version': v })),
    mutateWith('envelope:forged-signature', 'mismatch', hex, (h, sig) => ({ ...h, 'x-message-signature': sig })),
    mutateWith('envelope:signature-garbage', 'mismatch', fc.string({ minLength: 1, maxLength: 80 }), (h, sig) => ({ ...h, 'x-message-signature': sig })),
    mutate('envelope:other-key', 'mismatch', (_h, b) => signedHeaders(ctx, b, { key: randomBytes(32) })),
    mutate('envelope:signature-truncated', 'mismatch', (h) => ({ ...h, 'x-message-signature': (h['x-message-signature'] as string).slice(0, 63) })),
    mutateWith('envelope:tenant-added', 'mismatch', fc.string({ minLength: 1, maxLength: 30 }), (h, tenant) => ({ ...h, 'X-Tenant-ID': tenant })),
    mutateWith('envelope:other-routing-key', 'mismatch', fc.constantFrom('fetcher.dlq', '', 'other.queue'), (_h, rk, b) => signedHeaders({ ...ctx, queue: rk }, b)),
    mutateWith('envelope:signed-for-other-job', 'mismatch', uuid, (_h, other, b) => signedHeaders(ctx, b, { jobId: other })),
    // The body changed after signing: one byte flipped, or the job id swapped.
    fc.tuple(body, fc.nat()).map(([b, at]) => {
      const headers = signedHeaders(ctx, b);
      const changed = Buffer.from(b);
      const i = at % changed.length;
      changed[i] = changed[i] === 0x20 ? 0x21 : 0x20;
      return { kind: 'envelope:body-tampered', body: changed, headers, expected: 'mismatch' as const };
    }),
  ];
}

/** Every family, equally likely per case; huge and deep bodies are added separately, being costly. */
export function hostileMessage(ctx: HostileContext): fc.Arbitrary<HostileMessage> {
  return fc.oneof(...envelopeCases(ctx), ...wrongTypeCases(ctx), ...brokenBodyCases(ctx), ...unknownJobCases(ctx));
}

/**
 * `count` hostile messages, reproducible from `seed`: first one of every case (so each field with each
 * wrong type, each envelope fault and each broken body occurs at least once), then random draws, with
 * `huge` large bodies (1-4 MiB, half of them cut short) and two deeply nested ones among them.
 */
export function hostileMessages(ctx: HostileContext, count: number, seed: number, huge = 4): HostileMessage[] {
  const every = [...envelopeCases(ctx), ...wrongTypeCases(ctx), ...brokenBodyCases(ctx), ...unknownJobCases(ctx)];
  const once = every.map((arb, i) => fc.sample(arb, { numRuns: 1, seed: seed + i })[0]);
  const large = Array.from({ length: huge }, (_, i) => fc.sample(hugeCase(ctx, (1 + (i % 4)) << 20, i % 2 === 1), { numRuns: 1, seed: seed - i - 1 })[0]);
  const deep = [10_000, 100_000].map((depth) => fc.sample(deepCase(ctx, depth), { numRuns: 1, seed })[0]);
  const rest = count - once.length - large.length - deep.length;
  const all = [...once, ...large, ...deep, ...(rest > 0 ? fc.sample(hostileMessage(ctx), { numRuns: rest, seed }) : [])];
  // Shuffled (reproducibly), so that the costly ones do not bunch up.
  const order = fc.sample(fc.shuffledSubarray(all.map((_, i) => i), { minLength: all.length, maxLength: all.length }), { numRuns: 1, seed })[0];
  return order.map((i) => all[i]);
}

/** How many distinct cases `hostileMessages` always includes (its minimum size), besides huge and deep ones. */
export function caseCount(ctx: HostileContext): number {
  return envelopeCases(ctx).length + wrongTypeCases(ctx).length + brokenBodyCases(ctx).length + unknownJobCases(ctx).length;
}

/** How many messages expect each reason. */
export function countByReason(messages: readonly HostileMessage[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const m of messages) counts[m.expected] = (counts[m.expected] ?? 0) + 1;
  return counts;
}
