/**
 * Generated hostile HTTP requests for every route of the Manager, and the rules every answer must
 * keep whatever was sent: no 5xx, no stack trace or internal detail, no secret sent back. Paths mix
 * real, unknown and malformed ids (bad percent-encoding, NUL, traversal, 10 KiB); bodies are the
 * route's schema with wrong types in every field, unknown fields, raw text, truncated, deep or
 * over-size JSON, under every content type; query strings and headers are drawn the same way. Each
 * request carries a secret where credentials go (the password field, `Authorization`, `Cookie`, an
 * API key header, credential-looking query parameters) that no answer may contain.
 */
import fc from 'fast-check';

export interface HostileRequest {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT' | 'OPTIONS' | 'HEAD';
  /** Path and query string, already encoded (possibly badly, on purpose). */
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** What the generators need to know about the server under test. */
export interface RequestContext {
  /** A stored connection the id routes may hit (it may get deleted, patched or assigned). */
  readonly connectionId: string;
  readonly configName: string;
  /** A stored job. */
  readonly jobId: string;
  /** The secret to plant; no answer may contain it. */
  readonly secret: string;
}

export interface HostileRoute {
  readonly name: string;
  readonly request: (ctx: RequestContext) => fc.Arbitrary<HostileRequest>;
}

const anyJson = fc.jsonValue({ maxDepth: 3 });
const ascii = (max: number) => fc.string({ maxLength: max, unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) });

/** Ids: the real one, unknown UUIDs, and strings a router and a UUID parser must survive. */
function idSegment(real: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constant(real),
    fc.constant(real.toUpperCase()),
    fc.uuid().map((u) => u),
    fc.constantFrom('00000000-0000-0000-0000-000000000000', 'unassigned', 'validate-schema', '%ZZ', '%', '%00', '..%2F..%2Fetc%2Fpasswd', '%2e%2e', 'a%2Fb', '%C0%AF', '%FF%FE', '__proto__', 'constructor', '$where', 'null', '-1', '1e400'),
    fc.string({ maxLength: 60 }).map(encodeURIComponent),
    fc.constant('x'.repeat(10_000)),
  );
}

/** Query strings: known parameters with wrong values, unknown ones, repeats, pollution, bad encoding. */
function queryString(known: readonly string[], secret: string): fc.Arbitrary<string> {
  const key = fc.oneof(fc.constantFrom(...known, '__proto__', 'constructor', 'metadata.__proto__', 'metadata.$gt', '$where', 'password', 'token', 'apiKey', 'a[b]', 'a[]', ''), ascii(30));
  const value = fc.oneof(fc.string({ maxLength: 50 }), fc.integer().map(String), fc.constantFrom('', 'null', '-1', '0', '1e400', 'NaN', '2026-13-45', '[object Object]', '{"$gt":""}'), fc.constant('v'.repeat(5_000)));
  const pair = fc.oneof(
    { weight: 8, arbitrary: fc.tuple(key, value).map(([k, v]) => `${encodeURIComponent(k)}=${k === 'password' || k === 'token' || k === 'apiKey' ? secret : encodeURIComponent(v)}`) },
    { weight: 1, arbitrary: fc.constantFrom('%ZZ=1', 'a=%', '=', '&&&', 'limit=1&limit=2', 'page=%00', 'a=%E0%A4%A') },
  );
  return fc.array(pair, { maxLength: 6 }).map((pairs) => (pairs.length === 0 ? '' : `?${pairs.join('&')}`));
}

const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/json-patch+json', '*/*', 'application/JSON', ''];

/** Headers: product names, request ids, content types, credentials (the secret) and oddities. */
function headersFor(secret: string): fc.Arbitrary<Record<string, string>> {
  return fc.record({
    'content-type': fc.oneof({ weight: 4, arbitrary: fc.constant('application/json') }, { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) }),
    'x-product-name': fc.oneof(fc.constantFrom('reporter', 'hostile', '', ' ', 'a'.repeat(300), '../x', 'p\tq', '__proto__'), ascii(40)),
    'x-request-id': fc.oneof(fc.uuid(), ascii(60), fc.constant('r'.repeat(2_000))),
    authorization: fc.constantFrom(`Bearer ${secret}`, `Basic ${Buffer.from(`admin:${secret}`).toString('base64')}`, secret),
    cookie: fc.constant(`session=${secret}`),
    'x-api-key': fc.constant(secret),
    'x-organization-id': ascii(40),
    'x-tenant-id': ascii(40),
    'accept-encoding': fc.constantFrom('gzip', 'br', 'identity', '*', 'x'),
  }, { requiredKeys: ['authorization', 'cookie', 'x-api-key'] });
}

/** A body: the route's own shape with wrong types (and the secret as a password), or anything else. */
function bodyFor(shape: fc.Arbitrary<Record<string, unknown>> | undefined): fc.Arbitrary<string | undefined> {
  const valid = shape ?? fc.dictionary(fc.string({ maxLength: 10 }), anyJson, { maxKeys: 4 });
  const text = valid.map((b) => JSON.stringify(b));
  return fc.oneof(
    { weight: 6, arbitrary: text },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: anyJson.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
    { weight: 1, arbitrary: text.chain((t) => fc.nat({ max: Math.max(0, t.length - 1) }).map((n) => t.slice(0, n))) },
    { weight: 1, arbitrary: fc.constantFrom('{"a":' .repeat(3_000) + '1' + '}'.repeat(3_000), `[${'['.repeat(10_000)}${']'.repeat(10_000)}]`, '{"n":1e400}', '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"x":1}}}', '\u0000', '\uFEFF{}', '{"a":"\uD800"}') },
    { weight: 1, arbitrary: fc.constantFrom(4, 5).map((mib) => `{"pad":"${'x'.repeat(mib * 1024 * 1024)}"}`) },
  );
}

/** The connection body: every known field drawn from plausible values or any JSON. */
function connectionShape(secret: string): fc.Arbitrary<Record<string, unknown>> {
  return fc.record({
    configName: fc.oneof(fc.stringMatching(/^[a-zA-Z0-9_-]{3,20}$/), anyJson),
    type: fc.oneof(fc.constantFrom('POSTGRESQL', 'MYSQL', 'MONGODB', 'ORACLE', 'SQL_SERVER', 'postgresql', ''), anyJson),
    host: fc.oneof(fc.constantFrom('127.0.0.1', '169.254.169.254', '::1', 'localhost', '10.0.0.1', ''), anyJson),
    port: fc.oneof(fc.integer({ min: -10, max: 70_000 }), fc.double(), anyJson),
    databaseName: fc.oneof(fc.string({ maxLength: 20 }), anyJson),
    userName: fc.oneof(fc.string({ maxLength: 20 }), anyJson),
    password: fc.oneof({ weight: 4, arbitrary: fc.constant(secret) }, { weight: 1, arbitrary: anyJson }),
    ssl: fc.oneof(fc.record({ mode: fc.oneof(fc.constantFrom('disable', 'require', 'verify-full', 'bogus'), anyJson), ca: fc.oneof(fc.constant(secret), anyJson) }, { requiredKeys: [] }), anyJson),
    metadata: fc.oneof(fc.dictionary(fc.string({ maxLength: 10 }), anyJson, { maxKeys: 3 }), anyJson),
  }, { requiredKeys: [] });
}

/** `mappedFields` (and `filters`) over the real datasource, unknown ones and wrong types at each level. */
function mappedFields(configName: string): fc.Arbitrary<unknown> {
  const fields = fc.oneof(fc.array(fc.oneof(fc.constantFrom('id', '*', 'amount'), fc.string({ maxLength: 10 })), { maxLength: 3 }), anyJson);
  const tables = fc.oneof(fc.dictionary(fc.oneof(fc.constantFrom('public.orders', 'orders', 'x.y.z'), fc.string({ maxLength: 12 })), fields, { maxKeys: 2 }), anyJson);
  return fc.oneof(fc.dictionary(fc.oneof(fc.constant(configName), fc.string({ maxLength: 12 })), tables, { maxKeys: 2 }), anyJson);
}

function filters(configName: string): fc.Arbitrary<unknown> {
  const op = fc.constantFrom('eq', 'gt', 'gte', 'lt', 'lte', 'between', 'in', 'nin', 'ne', 'like', '$where', 'regex');
  const condition = fc.oneof(fc.dictionary(op, fc.oneof(fc.array(anyJson, { maxLength: 3 }), anyJson), { maxKeys: 2 }), anyJson);
  return fc.oneof(fc.constant({ [configName]: { 'public.orders': { id: { eq: [1] } } } }), fc.dictionary(fc.constant(configName), fc.dictionary(fc.string({ maxLength: 10 }), fc.dictionary(fc.string({ maxLength: 8 }), condition, { maxKeys: 2 }), { maxKeys: 2 }), { maxKeys: 1 }), anyJson);
}

function request(method: HostileRequest['method'], path: fc.Arbitrary<string>, query: fc.Arbitrary<string>, body: fc.Arbitrary<string | undefined> | undefined, secret: string): fc.Arbitrary<HostileRequest> {
  return fc.tuple(path, query, headersFor(secret), body ?? fc.constant(undefined)).map(([p, q, headers, b]) => ({ method, url: `${p}${q}`, headers, ...(b === undefined ? {} : { body: b }) }));
}

const CONNECTIONS = '/v1/management/connections';
const LIST_QUERY = ['page', 'limit', 'sortOrder', 'startDate', 'endDate', 'type', 'host', 'databaseName', 'configName', 'cursor', 'metadata.tier', 'productName'];
const JOB_QUERY = ['status', 'createdFrom', 'createdTo', 'configName', 'cursor', 'limit'];

/** Every business route, the system routes and unknown ones. */
export const HOSTILE_ROUTES: readonly HostileRoute[] = [
  { name: 'POST /v1/management/connections', request: (c) => request('POST', fc.constant(CONNECTIONS), queryString([], c.secret), bodyFor(connectionShape(c.secret)), c.secret) },
  { name: 'GET /v1/management/connections', request: (c) => request('GET', fc.constant(CONNECTIONS), queryString(LIST_QUERY, c.secret), undefined, c.secret) },
  { name: 'GET /v1/management/connections/{id}', request: (c) => request('GET', idSegment(c.connectionId).map((id) => `${CONNECTIONS}/${id}`), queryString([], c.secret), undefined, c.secret) },
  { name: 'PATCH /v1/management/connections/{id}', request: (c) => request('PATCH', idSegment(c.connectionId).map((id) => `${CONNECTIONS}/${id}`), queryString([], c.secret), bodyFor(connectionShape(c.secret)), c.secret) },
  { name: 'DELETE /v1/management/connections/{id}', request: (c) => request('DELETE', idSegment(c.connectionId).map((id) => `${CONNECTIONS}/${id}`), queryString([], c.secret), fc.option(fc.string({ maxLength: 30 }), { nil: undefined }), c.secret) },
  { name: 'POST /v1/management/connections/{id}/test', request: (c) => request('POST', idSegment(c.connectionId).map((id) => `${CONNECTIONS}/${id}/test`), queryString([], c.secret), bodyFor(undefined), c.secret) },
  { name: 'GET /v1/management/connections/{id}/schema', request: (c) => request('GET', idSegment(c.connectionId).map((id) => `${CONNECTIONS}/${id}/schema`), queryString(['refresh', 'table'], c.secret), undefined, c.secret) },
  {
    name: 'POST /v1/management/connections/validate-schema',
    request: (c) => request('POST', fc.constant(`${CONNECTIONS}/validate-schema`), queryString([], c.secret), bodyFor(fc.record({ mappedFields: mappedFields(c.configName), filters: filters(c.configName) }, { requiredKeys: [] })), c.secret),
  },
  { name: 'GET /v1/management/connections/unassigned', request: (c) => request('GET', fc.constant(`${CONNECTIONS}/unassigned`), queryString(LIST_QUERY, c.secret), undefined, c.secret) },
  { name: 'POST /v1/management/connections/{id}/assign', request: (c) => request('POST', idSegment(c.connectionId).map((id) => `${CONNECTIONS}/${id}/assign`), queryString([], c.secret), bodyFor(undefined), c.secret) },
  {
    name: 'POST /v1/fetcher',
    request: (c) => request('POST', fc.constant('/v1/fetcher'), queryString([], c.secret), bodyFor(fc.record({
      dataRequest: fc.oneof(fc.record({ mappedFields: mappedFields(c.configName), filters: filters(c.configName) }, { requiredKeys: [] }), anyJson),
      metadata: fc.oneof(fc.record({ source: fc.oneof(fc.constantFrom('reporter', 'hostile'), anyJson) }, { requiredKeys: [] }), anyJson),
    }, { requiredKeys: [] })), c.secret),
  },
  { name: 'GET /v1/fetcher', request: (c) => request('GET', fc.constant('/v1/fetcher'), queryString(JOB_QUERY, c.secret), undefined, c.secret) },
  { name: 'GET /v1/fetcher/{id}', request: (c) => request('GET', idSegment(c.jobId).map((id) => `/v1/fetcher/${id}`), queryString([], c.secret), undefined, c.secret) },
  { name: 'POST /v1/fetcher/{id}/cancel', request: (c) => request('POST', idSegment(c.jobId).map((id) => `/v1/fetcher/${id}/cancel`), queryString([], c.secret), bodyFor(undefined), c.secret) },
  { name: 'POST /v1/fetcher/{id}/retry', request: (c) => request('POST', idSegment(c.jobId).map((id) => `/v1/fetcher/${id}/retry`), queryString([], c.secret), bodyFor(undefined), c.secret) },
  {
    name: 'system routes',
    request: (c) => request('GET', fc.constantFrom('/health', '/readyz', '/metrics', '/version', '/swagger/doc.json').chain((p) => fc.constant(p)), queryString([], c.secret), undefined, c.secret),
  },
  { name: 'GET /readyz/tenant/{id}', request: (c) => request('GET', idSegment('tenant-a').map((id) => `/readyz/tenant/${id}`), queryString([], c.secret), undefined, c.secret) },
  {
    name: 'unknown routes and methods',
    request: (c) =>
      fc.tuple(fc.constantFrom<HostileRequest['method']>('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'), fc.oneof(fc.constantFrom('/', '//', '/v1', '/v1/fetcher/', '/v2/fetcher', '/v1/management/connections/a/b/c', '/%ZZ', '/..', '/v1/fetcher/%00'), fc.webPath()), headersFor(c.secret), bodyFor(undefined))
        .map(([method, path, headers, body]) => ({ method, url: path === '' ? '/' : path, headers, ...(body === undefined ? {} : { body }) })),
  },
];

/**
 * What is wrong with an answer, if anything: a 5xx (but `/readyz` answering 503, its contract for a
 * dependency down), internals in the body, or the secret sent back in the body or a header.
 */
export function answerProblems(request: HostileRequest, answer: { status: number; headers: Record<string, unknown>; text: string }, secret: string): string[] {
  const problems: string[] = [];
  const readiness = request.method === 'GET' && request.url.startsWith('/readyz') && answer.status === 503;
  if (answer.status >= 500 && !readiness) problems.push(`status ${answer.status}`);
  if (/\n\s+at |\bat [\w.<>]+ \(|node_modules|FST_ERR|"statusCode"|mongodb:\/\/|postgres:\/\/|amqp:\/\//.test(answer.text)) problems.push('internals in the body');
  if (answer.text.includes(secret)) problems.push('the secret in the body');
  if (Object.values(answer.headers).some((v) => String(v).includes(secret))) problems.push('the secret in a header');
  return problems;
}
