import { EngineError, ErrorText } from '../errors';
import { ConfigFragmentEncoder, type EncodedChunk } from './fragment-encoder';

const decode = (chunks: EncodedChunk[]): string => chunks.map((c) => new TextDecoder().decode(c.bytes)).join('');

describe(ConfigFragmentEncoder.name, () => {
  it('writes tables in their sorted order, empty ones as [], and batches rows', () => {
    const sut = new ConfigFragmentEncoder('crm', ['a', 'b', 'c', 'd'], { batchRows: 2 });
    const chunks = [
      sut.push({ table: 'b', row: { id: 1 } }),
      sut.push({ table: 'b', row: { id: 2 } }),
      sut.push({ table: 'b', row: { id: 3 } }),
      sut.push({ table: 'd', row: { id: 4 } }),
      sut.finish(),
    ];
    expect(chunks.map((c) => c?.rows)).toEqual([undefined, 2, undefined, 2, 0]);
    expect(decode(chunks.filter((c): c is EncodedChunk => c !== undefined))).toBe(
      '"crm":{"a":[],"b":[{"id":1},{"id":2},{"id":3}],"c":[],"d":[{"id":4}]}',
    );
  });

  it('prefixes a comma for every fragment but the first, and writes a table-less config as {}', () => {
    expect(decode([new ConfigFragmentEncoder('x', [], { leadingComma: true }).finish()])).toBe(',"x":{}');
  });

  it('copies pre-encoded rows in, separated from neighbouring rows', () => {
    const sut = new ConfigFragmentEncoder('crm', ['t']);
    const encoded = new TextEncoder().encode('{"id":2},{"id":3}');
    const chunks = [sut.push({ table: 't', row: { id: 1 } }), sut.push({ table: 't', encoded, rowCount: 2 }), sut.push({ table: 't', row: { id: 4 } }), sut.finish()];
    encoded.fill(0); // the connector reuses its buffer: the encoder must have copied it
    expect(decode(chunks.filter((c): c is EncodedChunk => c !== undefined))).toBe('"crm":{"t":[{"id":1},{"id":2},{"id":3},{"id":4}]}');
    expect(chunks.reduce((n, c) => n + (c?.rows ?? 0), 0)).toBe(4);
  });

  it.each([
    ['a table going backwards', [{ table: 'b', row: {} }, { table: 'a', row: {} }]],
    ['an unknown table', [{ table: 'zz', row: {} }]],
    ['a table that is not a string', [{ table: 5, row: {} }]],
    ['a row that is not an object', [{ table: 'a', row: [1] }]],
    ['encoded rows that are not bytes', [{ table: 'a', encoded: '{"id":1}', rowCount: 1 }]],
    ['a fractional row count', [{ table: 'a', encoded: new Uint8Array([123, 125]), rowCount: 1.5 }]],
    ['null', [null]],
  ])('refuses %s as an unexpected step failure', (_name, items) => {
    const sut = new ConfigFragmentEncoder('crm', ['a', 'b']);
    expect(() => items.forEach((item) => sut.push(item as never))).toThrow(expect.objectContaining({ category: 'internal', message: ErrorText.stepUnexpected }));
  });

  it('refuses use after finish and a table list that is not sorted and unique', () => {
    const sut = new ConfigFragmentEncoder('crm', ['a']);
    sut.finish();
    expect(() => sut.finish()).toThrow(EngineError);
    expect(() => new ConfigFragmentEncoder('crm', ['b', 'a'])).toThrow(expect.objectContaining({ category: 'internal', message: ErrorText.serializeFailed }));
    expect(() => new ConfigFragmentEncoder('crm', ['a', 'a'])).toThrow(expect.objectContaining({ category: 'internal', message: ErrorText.serializeFailed }));
  });
});
