import { randomUUID } from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { type MongoTestTarget, withMongo } from '@fetcher/mongo-test-server';
import fc from 'fast-check';
import { aPostgresConnection, type Answer, ManagerHarness } from '../testing/manager-harness';

const BASE = '/v1/management/connections';
const RUNS = 150;

/** Any JSON value, including the wrong types for every known field. */
const anyJson = fc.jsonValue({ maxDepth: 2 });
const plausible = {
  configName: fc.oneof(fc.string({ maxLength: 120 }), fc.stringMatching(/^[a-zA-Z0-9_-]{1,110}$/), anyJson),
  type: fc.oneof(fc.constantFrom('POSTGRESQL', 'MYSQL', 'MONGODB', 'ORACLE', 'SQL_SERVER', 'postgresql', ''), anyJson),
  host: fc.oneof(fc.constantFrom('db.example.com', '127.0.0.1', '169.254.169.254', '::1', 'localhost', '', ' x '), fc.domain(), fc.ipV4(), fc.ipV6(), anyJson),
  port: fc.oneof(fc.integer({ min: -10, max: 70_000 }), fc.double(), anyJson),
  databaseName: fc.oneof(fc.string({ maxLength: 20 }), anyJson),
  schema: fc.oneof(fc.string({ maxLength: 20 }), anyJson),
  userName: fc.oneof(fc.string({ maxLength: 20 }), anyJson),
  ssl: fc.oneof(
    fc.record({ mode: fc.oneof(fc.constantFrom('disable', 'require', 'true', 'bogus', ''), anyJson), ca: fc.oneof(fc.string({ maxLength: 10 }), anyJson) }, { requiredKeys: [] }),
    anyJson,
  ),
  metadata: fc.oneof(fc.dictionary(fc.string({ maxLength: 10 }), anyJson, { maxKeys: 4 }), anyJson),
};
/** Passwords are distinctive, so an echo would be found in any response text. */
const password = fc.oneof(fc.uuid().map((u) => `pw-${u}`), anyJson);
const unknownFields = fc.dictionary(fc.string({ maxLength: 12 }).filter((k) => !(k in plausible) && k !== 'password' && k !== '__proto__'), anyJson, { maxKeys: 3 });

const createBody = fc
  .tuple(fc.record({ ...plausible, password }, { requiredKeys: [] }), unknownFields)
  .map(([known, unknown]) => ({ ...unknown, ...known }));

/** What every answer must satisfy, whatever was sent. */
function expectSafe(res: Answer, sentPassword: unknown): void {
  expect(res.status).toBeLessThan(500);
  expect(res.text).not.toMatch(/\n\s+at |Error:|mongodb:\/\/|stack/);
  // Only generated passwords are distinctive enough to search for (" " appears in any message).
  if (typeof sentPassword === 'string' && sentPassword.startsWith('pw-')) expect(res.text).not.toContain(sentPassword);
  if (res.text !== '') expect(() => res.json()).not.toThrow();
}

describe('property: no body or query makes the connection routes fail, leak or echo a password', () => {
  let mongo: MongoTestTarget;
  let sut: ManagerHarness;
  let existing: Record<string, unknown>;

  beforeAll(async () => {
    mongo = await withMongo();
    sut = await ManagerHarness.start(mongo.uri);
    existing = await sut.create(aPostgresConnection());
  });
  afterAll(async () => {
    await sut?.close();
    await mongo?.close();
  });

  it('create: never a 5xx, a stack trace or an echoed password', async () => {
    await fc.assert(
      fc.asyncProperty(createBody, fc.option(fc.string({ maxLength: 30 }), { nil: undefined }), async (body, product) => {
        const headers: Record<string, string> = product === undefined ? {} : { 'x-product-name': product.replace(/[^\x20-\x7e]/g, '') };
        const res = await sut.request('POST', BASE, { headers, body });
        expectSafe(res, body.password);
        if (res.status === 201) expect(res.json()).not.toHaveProperty('password');
      }),
      { numRuns: RUNS },
    );
  });

  it('create: any raw text with a JSON content type is at worst a 400', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), async (text) => {
        const res = await sut.request('POST', BASE, { headers: { 'x-product-name': 'p', 'content-type': 'application/json' }, body: text });
        expectSafe(res, undefined);
      }),
      { numRuns: RUNS },
    );
  });

  it('patch: never a 5xx, a stack trace or an echoed password', async () => {
    await fc.assert(
      fc.asyncProperty(createBody, fc.constantFrom(existing.id as string, randomUUID(), 'not-an-id'), async (body, id) => {
        const res = await sut.request('PATCH', `${BASE}/${id}`, { body });
        expectSafe(res, body.password);
      }),
      { numRuns: RUNS },
    );
  });

  it('list and unassigned: any query parameters are a 200 or a 400', async () => {
    const key = fc.oneof(
      fc.constantFrom('page', 'limit', 'sortOrder', 'startDate', 'endDate', 'type', 'host', 'databaseName', 'cursor', 'metadata.tier', 'metadata.$x', '$where', '_id'),
      fc.string({ maxLength: 70 }),
    );
    const value = fc.oneof(fc.string({ maxLength: 300 }), fc.integer().map(String), fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)));
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, value, { maxKeys: 5 }), fc.constantFrom(BASE, `${BASE}/unassigned`), async (query, path) => {
        const res = await sut.request('GET', path, { query });
        expect([200, 400]).toContain(res.status);
        expectSafe(res, undefined);
      }),
      { numRuns: RUNS },
    );
  });
});
