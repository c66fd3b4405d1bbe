import { EngineError, JsonNumber, encodeCanonicalJson, encodeCanonicalRow, type Row } from '@fetcher/engine';
import { FieldRender, type CopyField } from './copy-columns.postgres';
import { CopyRowEncoder } from './copy-row-encoder.postgres';
import { COPY_TRAILER, copyHeader, copyStream, copyTuple, field, type Field } from './testing/copy-binary';
import { textConverter } from './value-mapping.postgres';

const f = (name: string, render: FieldRender, udtName = 'text', dataType = 'text'): CopyField => ({
  name,
  render,
  convert: textConverter({ udtName, dataType }),
});

/** Runs the encoder over `data` split into `pieces`, returning the chunks it emitted. */
function encode(fields: readonly CopyField[], data: Buffer, pieces: readonly number[] = [], targetBytes = 1 << 20): { text: string; rows: number }[] {
  const chunks: { text: string; rows: number }[] = [];
  const sut = new CopyRowEncoder(fields, (encoded, rows) => chunks.push({ text: Buffer.from(encoded).toString('utf8'), rows }), targetBytes);
  let at = 0;
  for (const cut of [...pieces, data.length]) {
    sut.push(data, at, cut);
    at = cut;
  }
  sut.finish();
  return chunks;
}

function encodeOne(fields: readonly CopyField[], values: readonly Field[]): string {
  const chunks = encode(fields, copyStream([values]));
  expect(chunks).toHaveLength(1);
  expect(chunks[0].rows).toBe(1);
  return chunks[0].text;
}

describe(CopyRowEncoder.name, () => {
  it('writes the canonical row: keys in the given order, compact, NULL as null', () => {
    const fields = [f('a', FieldRender.int4), f('b', FieldRender.string), f('c', FieldRender.bool)];
    expect(encodeOne(fields, [field.int4(7), null, field.bool(false)])).toBe('{"a":7,"b":null,"c":false}');
  });

  it.each([
    [FieldRender.int2, [-32768, -1, 0, 9, 10, 32767], field.int2],
    [FieldRender.int4, [-2147483648, -100, 99, 100, 2147483647], field.int4],
    [FieldRender.oid, [0, 4294967295], field.oid],
  ])('writes integers of render %s exactly', (render, values, make) => {
    for (const value of values) expect(encodeOne([f('n', render)], [make(value)])).toBe(encodeCanonicalRow({ n: value }));
  });

  it('writes 64-bit integers exactly, on both sides of 2^53', () => {
    const values = [0n, -1n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 2n ** 63n - 1n, -(2n ** 63n), 4294967296n, -4294967296n];
    for (const value of values) expect(encodeOne([f('n', FieldRender.int8)], [field.int8(value)])).toBe(`{"n":${value}}`);
  });

  it('writes float8 as the engine writes numbers: shortest form, -0 as 0, non-finite as strings', () => {
    const values = [0.1, -0, 1e21, 1e-7, 123456789012345680000, 5e-324, 1.7976931348623157e308, NaN, Infinity, -Infinity, 1000000000000000];
    for (const value of values) expect(encodeOne([f('x', FieldRender.float8)], [field.float8(value)])).toBe(encodeCanonicalRow({ x: value }));
  });

  it('escapes every byte of a string as JSON.stringify does', () => {
    let all = '';
    for (let c = 1; c < 0x80; c++) all += String.fromCharCode(c);
    const samples = [all, 'Zoë 🚀 ünïcode', '', '"\\/', '\u2028\u2029<>&', '中文'];
    for (const text of samples) expect(encodeOne([f('s', FieldRender.string)], [field.text(text)])).toBe(encodeCanonicalRow({ s: text }));
  });

  it('quotes numeric and uuid text as it comes', () => {
    expect(encodeOne([f('n', FieldRender.quoted)], [field.text('-12345678901234567890.000100')])).toBe('{"n":"-12345678901234567890.000100"}');
    expect(encodeOne([f('n', FieldRender.quoted)], [field.text('NaN')])).toBe('{"n":"NaN"}');
  });

  it.each([
    ['2024-01-02 03:04:05+00', '2024-01-02T03:04:05Z'],
    ['2024-01-02 03:04:05.5+00', '2024-01-02T03:04:05.5Z'],
    ['2024-01-02 03:04:05.123456+00', '2024-01-02T03:04:05.123456Z'],
    ['0044-03-15 12:00:00+00 BC', '-0043-03-15T12:00:00Z'],
    ['0001-01-01 00:00:00+00 BC', '0000-01-01T00:00:00Z'],
    ['12345-06-07 08:09:10.5+00', '+12345-06-07T08:09:10.5Z'],
    ['infinity', 'infinity'],
    ['-infinity', '-infinity'],
  ])('turns timestamptz %s into %s', (text, iso) => {
    expect(encodeOne([f('t', FieldRender.timestamptz, 'timestamptz', 'timestamp with time zone')], [field.text(text)])).toBe(`{"t":"${iso}"}`);
  });

  it.each([
    ['2024-01-02 03:04:05', '2024-01-02T03:04:05Z'],
    ['1999-12-31 23:59:59.999999', '1999-12-31T23:59:59.999999Z'],
    ['0044-03-15 12:00:00 BC', '-0043-03-15T12:00:00Z'],
    ['infinity', 'infinity'],
  ])('turns timestamp %s into %s', (text, iso) => {
    expect(encodeOne([f('t', FieldRender.timestamp, 'timestamp', 'timestamp without time zone')], [field.text(text)])).toBe(`{"t":"${iso}"}`);
  });

  it.each([
    ['2024-02-29', '2024-02-29T00:00:00Z'],
    ['0005-02-29 BC', '-0004-02-29T00:00:00Z'],
    ['10000-01-01', '+10000-01-01T00:00:00Z'],
    ['-infinity', '-infinity'],
  ])('turns date %s into %s', (text, iso) => {
    expect(encodeOne([f('d', FieldRender.date, 'date', 'date')], [field.text(text)])).toBe(`{"d":"${iso}"}`);
  });

  it('writes bytea as padded base64', () => {
    expect(encodeOne([f('b', FieldRender.bytea)], [field.bytes([])])).toBe('{"b":""}');
    expect(encodeOne([f('b', FieldRender.bytea)], [field.bytes([0, 255, 16, 1])])).toBe('{"b":"AP8QAQ=="}');
  });

  it('converts json, arrays and float4 with the row path converter', () => {
    const fields = [f('a', FieldRender.convert, '_int8', 'ARRAY'), f('j', FieldRender.convert, 'jsonb', 'jsonb'), f('r', FieldRender.convert, 'float4', 'real')];
    const row = encodeOne(fields, [field.text('{1,NULL,-9223372036854775808}'), field.text('{"b": 1.10, "a": [2e5]}'), field.text('1e+30')]);
    const expected: Row = { a: [1n, null, -9223372036854775808n], j: { a: [new JsonNumber('2e5')], b: new JsonNumber('1.10') }, r: 1e30 };
    expect(row).toBe(encodeCanonicalRow(expected));
  });

  it('escapes key names once, in the prefix', () => {
    expect(encodeOne([f('a "q"', FieldRender.int4), f('é', FieldRender.int4)], [field.int4(1), field.int4(2)])).toBe('{"a \\"q\\"":1,"é":2}');
  });

  const fixtureFields = [f('id', FieldRender.int8), f('name', FieldRender.string), f('at', FieldRender.timestamptz, 'timestamptz')];
  const fixtureRows: Field[][] = [
    [field.int8(1n), field.text('a\nb'), field.text('2024-01-01 00:00:00+00')],
    [field.int8(-2n), null, field.text('infinity')],
    [field.int8(3n), field.text('ü'.repeat(40)), null],
  ];
  const fixture = copyStream(fixtureRows);
  const whole = encode(fixtureFields, fixture).map((c) => c.text).join(',');

  it('gives the same rows however the data is split', () => {
    for (let cut = 1; cut < fixture.length; cut++) {
      expect(encode(fixtureFields, fixture, [cut]).map((c) => c.text).join(',')).toBe(whole);
    }
    const everyByte = Array.from({ length: fixture.length - 1 }, (_, i) => i + 1);
    expect(encode(fixtureFields, fixture, everyByte).map((c) => c.text).join(',')).toBe(whole);
  });

  it('emits chunks of whole rows once the target size is reached', () => {
    const chunks = encode(fixtureFields, fixture, [], 10);
    expect(chunks.map((c) => c.rows)).toEqual([1, 1, 1]);
    expect(chunks.map((c) => c.text).join(',')).toBe(whole);
    for (const chunk of chunks) expect(() => JSON.parse(chunk.text) as unknown).not.toThrow();
  });

  it('emits at most 256 rows per chunk, the engine batch', () => {
    const many = copyStream(Array.from({ length: 600 }, (_, i) => [field.int8(BigInt(i)), null, null]));
    expect(encode(fixtureFields, many).map((c) => c.rows)).toEqual([256, 256, 88]);
  });

  it('emits nothing for a table without rows', () => {
    expect(encode(fixtureFields, copyStream([]))).toEqual([]);
  });

  it('skips a header extension', () => {
    const data = Buffer.concat([copyHeader(Buffer.from('extension')), copyTuple([field.int8(5n), null, null]), COPY_TRAILER]);
    expect(encode(fixtureFields, data).map((c) => c.text)).toEqual(['{"id":5,"name":null,"at":null}']);
  });

  it.each([
    ['a bad signature', Buffer.concat([Buffer.from('PGCOPY\nXXXXXXXXXXXX'), COPY_TRAILER])],
    ['a wrong field count', copyStream([[field.int8(1n)]])],
    ['data after the trailer', Buffer.concat([copyStream([]), Buffer.from([0])])],
  ])('refuses %s with a fixed error', (_what, data) => {
    const sut = new CopyRowEncoder(fixtureFields, () => undefined);
    expect(() => {
      sut.push(data);
      sut.finish();
    }).toThrow(EngineError);
  });

  it('refuses data that stops before its trailer', () => {
    const sut = new CopyRowEncoder(fixtureFields, () => undefined);
    sut.push(Buffer.concat([copyHeader(), copyTuple(fixtureRows[0])]));
    expect(() => sut.finish()).toThrow(EngineError);
  });

  it('grows its buffer for a row larger than the chunk target', () => {
    const big = 'x'.repeat(200_000);
    const chunks = encode([f('s', FieldRender.string)], copyStream([[field.text(big)], [field.text('\u0001'.repeat(50_000))]]), [], 1024);
    expect(chunks.map((c) => c.text)).toEqual([encodeCanonicalJson({ s: big }), encodeCanonicalJson({ s: '\u0001'.repeat(50_000) })]);
  });
});
