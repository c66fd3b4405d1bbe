/**
 * Property tests of the canonical writer (fast-check and lossless-json are test-only devDependencies;
 * the engine source may not import them, so these live outside src/).
 */
import fc from 'fast-check';
import { parse } from 'lossless-json';
import { JsonNumber, type JsonValue, type Row } from '../src/models';
import { compareUtf8, encodeCanonicalJson } from '../src/canonical/encode';
import { CanonicalDocumentWriter } from '../src/canonical/document-writer';

type Document = Record<string, Record<string, Row[]>>;

async function write(document: Document, batchRows?: number): Promise<{ text: string; chunks: number[]; bytes: number; rows: number }> {
  const parts: Uint8Array[] = [];
  const sut = new CanonicalDocumentWriter((chunk) => void parts.push(chunk), { batchRows });
  // Configs must come sorted; the test sorts by UTF-8 bytes on its own, not with the engine's comparator.
  for (const config of Object.keys(document).sort(byUtf8)) {
    await sut.beginConfig(config, Object.keys(document[config]));
    // The connector order contract: grouped by table, tables ascending.
    for (const table of Object.keys(document[config]).sort(byUtf8)) {
      for (const row of document[config][table]) await sut.write({ table, row });
    }
    await sut.endConfig();
  }
  const totals = await sut.finish();
  const text = new TextDecoder().decode(Buffer.concat(parts));
  return { text, chunks: parts.map((p) => p.length), ...totals };
}

/**
 * Generalised UTF-8 (WTF-8) of a JS string: code points by iteration, a lone surrogate encoded as
 * the three bytes its code point would take. It is the byte order the canonical form sorts keys by.
 */
function wtf8(text: string): Buffer {
  const bytes: number[] = [];
  for (const char of text) {
    const cp = char.codePointAt(0)!;
    if (cp < 0x80) bytes.push(cp);
    else if (cp < 0x800) bytes.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) bytes.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else bytes.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return Buffer.from(bytes);
}

function byUtf8(a: string, b: string): number {
  return Buffer.compare(wtf8(a), wtf8(b));
}

/**
 * An independent reference encoder, written from the rules and sharing no code with the engine:
 * keys sorted by their (generalised) UTF-8 bytes, strings as JSON.stringify writes them (which
 * escapes a lone surrogate), exact integers, shortest floats, non-finite ones as strings, base64.
 */
function reference(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return '"NaN"';
    if (!Number.isFinite(value)) return value > 0 ? '"Infinity"' : '"-Infinity"';
    return JSON.stringify(value);
  }
  if (value instanceof JsonNumber) return value.text;
  if (value instanceof Uint8Array) return JSON.stringify(Buffer.from(value).toString('base64'));
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object).sort(byUtf8);
  return `{${keys.map((k) => `${JSON.stringify(k)}:${reference(object[k])}`).join(',')}}`;
}

/** What a lossless parse of the canonical text must give back: numbers as their literal text. */
function expected(value: JsonValue): unknown {
  if (typeof value === 'bigint') return { num: value.toString() };
  if (value instanceof JsonNumber) return { num: value.text };
  if (typeof value === 'number') return Number.isFinite(value) ? { num: Object.is(value, -0) ? '0' : String(value) } : String(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(expected);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expected(v)]));
  }
  return value;
}

const text = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('\ud800', 'a\udfffb', '<&>', '"\\\n\u0001', '\u{1F600}', '\uFFFD'));
const key = fc.oneof(fc.string({ unit: 'binary', maxLength: 6 }), fc.constantFrom('\u{10000}', '\uFFFF', 'a', 'B'));
const scalar: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.double(),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
  fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.nat()).map(([i, f]) => new JsonNumber(`${i}.${f}`)),
  text,
  fc.uint8Array({ maxLength: 8 }),
);
const value: fc.Arbitrary<JsonValue> = fc.letrec<{ v: JsonValue }>((tie) => ({
  v: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(key, tie('v'), { maxKeys: 3 })),
})).v;
const row = fc.oneof(
  fc.dictionary(key, value, { maxKeys: 5 }),
  // Wide rows: more than the 16 keys below which the encoder sorts differently, with plain keys
  // (which take the fast path) and with any keys.
  fc.dictionary(fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'Z', '_', '0', 'é'), maxLength: 4 }), scalar, { minKeys: 17, maxKeys: 40 }),
  fc.dictionary(fc.string({ unit: 'binary', maxLength: 4 }), scalar, { minKeys: 17, maxKeys: 40 }),
);
const documentArb = fc.dictionary(key.filter((k) => k !== ''), fc.dictionary(key, fc.array(row, { maxLength: 4 }), { maxKeys: 3 }), { maxKeys: 3 });

function lossless(text: string): unknown {
  return parse(text, null, (literal) => ({ num: literal }));
}

describe('CanonicalDocumentWriter properties', () => {
  it('parses back losslessly to the same data, with exact big numbers (property)', async () => {
    await fc.assert(
      fc.asyncProperty(documentArb, fc.integer({ min: 1, max: 3 }), async (document, batchRows) => {
        const { text, bytes } = await write(document, batchRows);
        const parsed = lossless(text);
        expect(parsed).toEqual(expected(document as unknown as JsonValue));
        expect(bytes).toBe(Buffer.byteLength(text));
      }),
      { numRuns: 300 },
    );
  });

  it('emits exactly the bytes of the reference encoder, whatever the batch size (property)', async () => {
    await fc.assert(
      fc.asyncProperty(documentArb, fc.integer({ min: 1, max: 4 }), async (document, batchRows) => {
        expect((await write(document, batchRows)).text).toBe(reference(document));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps integers beyond 2^53 exact where JSON.parse would round them', async () => {
    const { text } = await write({ c: { t: [{ big: 2n ** 64n + 1n, dec: new JsonNumber('0.10000000000000000000001') }] } });
    expect(text).toBe('{"c":{"t":[{"big":18446744073709551617,"dec":0.10000000000000000000001}]}}');
    expect(lossless(text)).toEqual({ c: { t: [{ big: { num: '18446744073709551617' }, dec: { num: '0.10000000000000000000001' } }] } });
  });

});

describe('compareUtf8 property', () => {
  it('agrees with a byte comparison of the generalised UTF-8 encodings (a lone surrogate as its own code point)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        expect(Math.sign(compareUtf8(a, b))).toBe(Math.sign(byUtf8(a, b)));
      }),
      { numRuns: 2000 },
    );
  });

  it('sorts many keys, lone surrogates included, exactly as the reference does (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ unit: 'binary', maxLength: 5 }), { minLength: 17, maxLength: 60 }), (keys) => {
        expect([...keys].sort(compareUtf8)).toEqual([...keys].sort(byUtf8));
        const row = Object.fromEntries(keys.map((k, i) => [k, i]));
        expect(encodeCanonicalJson(row)).toBe(reference(row));
      }),
      { numRuns: 300 },
    );
  });
});
