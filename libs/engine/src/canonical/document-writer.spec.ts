import { createHash } from 'node:crypto';
import { EngineError, ErrorText } from '../errors';
import type { Row } from '../models';
import { encodeCanonicalJson } from './encode';
import { CanonicalDocumentWriter } from './document-writer';

type Document = Record<string, Record<string, Row[]>>;

async function write(document: Document, batchRows?: number): Promise<{ text: string; chunks: number[]; bytes: number; rows: number }> {
  const parts: Uint8Array[] = [];
  const sut = new CanonicalDocumentWriter((chunk) => void parts.push(chunk), { batchRows });
  for (const config of Object.keys(document).sort()) {
    await sut.beginConfig(config, Object.keys(document[config]));
    for (const table of Object.keys(document[config]).sort()) {
      for (const row of document[config][table]) await sut.write({ table, row });
    }
    await sut.endConfig();
  }
  const totals = await sut.finish();
  return { text: new TextDecoder().decode(Buffer.concat(parts)), chunks: parts.map((p) => p.length), ...totals };
}

describe(CanonicalDocumentWriter.name, () => {
  it('writes the documented shape: compact, sorted, zero-row tables as []', async () => {
    const { text, rows } = await write({ crm: { users: [{ name: 'Ada', id: 1n }], orders: [] }, billing: { invoices: [] } });
    expect(text).toBe('{"billing":{"invoices":[]},"crm":{"orders":[],"users":[{"id":1,"name":"Ada"}]}}');
    expect(rows).toBe(1);
    expect((await write({})).text).toBe('{}');
  });

  it('hands out chunks that never hold more than one batch of rows', async () => {
    const rows = Array.from({ length: 1000 }, (_, id) => ({ id }));
    const { chunks, text } = await write({ c: { t: rows } }, 100);
    // "{", ten full batches, the closing fragment, "}".
    expect(chunks).toHaveLength(13);
    expect(createHash('sha256').update(text).digest('hex')).toBe(createHash('sha256').update(encodeCanonicalJson({ c: { t: rows } })).digest('hex'));
  });

  it('awaits an asynchronous output before producing the next chunk', async () => {
    const seen: string[] = [];
    let pending = 0;
    const sut = new CanonicalDocumentWriter(async (chunk) => {
      pending++;
      expect(pending).toBe(1);
      await Promise.resolve();
      seen.push(new TextDecoder().decode(chunk));
      pending--;
    }, { batchRows: 1 });
    await sut.beginConfig('c', ['t']);
    await sut.write({ table: 't', row: { a: 1 } });
    await sut.write({ table: 't', row: { a: 2 } });
    await sut.endConfig();
    await sut.finish();
    expect(seen.join('')).toBe('{"c":{"t":[{"a":1},{"a":2}]}}');
  });

  it('refuses configs out of order, writes outside a config and a second finish', async () => {
    const sut = new CanonicalDocumentWriter(() => undefined);
    const misuse = new EngineError('internal', ErrorText.serializeFailed);
    await expect(sut.write({ table: 't', row: {} })).rejects.toEqual(misuse);
    await sut.beginConfig('b', []);
    await sut.endConfig();
    await expect(sut.beginConfig('a', [])).rejects.toEqual(misuse);
    await sut.finish();
    await expect(sut.finish()).rejects.toEqual(misuse);
  });
});
