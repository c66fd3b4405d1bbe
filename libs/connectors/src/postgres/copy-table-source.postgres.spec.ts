import { EventEmitter } from 'node:events';
import { isEncodedRows, type CursorItem } from '@fetcher/engine';
import type { PoolClient } from 'pg';
import type { ClientLease } from './client-lease.postgres';
import { FieldRender } from './copy-columns.postgres';
import type { CopyOutQuery } from './copy-out-query.postgres';
import { CopyTableSource } from './copy-table-source.postgres';
import { COPY_TRAILER, copyHeader, copyTuple, field, message } from './testing/copy-binary';
import { textConverter } from './value-mapping.postgres';

/** A pooled session whose socket the test writes to; pg's own side is reduced to the hand-back listener. */
function fakeLease() {
  const stream = Object.assign(new EventEmitter(), { pause: jest.fn(), resume: jest.fn() });
  const handedBack: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => handedBack.push(chunk));
  let query: CopyOutQuery | undefined;
  const connection = { stream, query: jest.fn() };
  const client = {
    query: (q: CopyOutQuery) => {
      query = q;
      q.submit(connection as never);
      return q;
    },
  };
  const lease: ClientLease & { released: boolean[]; cancels: number } = {
    client: client as unknown as PoolClient,
    settleMs: 1_000,
    released: [],
    cancels: 0,
    cancel: async () => {
      lease.cancels += 1;
      // The server answers a cancel by ending the statement with 57014.
      query!.handleError(Object.assign(new Error('canceling statement due to user request'), { code: '57014' }));
    },
    release: (healthy: boolean) => void lease.released.push(healthy),
  };
  return { lease, stream, handedBack, query: () => query! };
}

const fields = [{ name: 'id', render: FieldRender.int4, convert: textConverter({ udtName: 'int4', dataType: 'integer' }) }];
const data = (bytes: Buffer) => message('d', bytes);
const rows = (from: number, to: number) => Buffer.concat(Array.from({ length: to - from + 1 }, (_, i) => copyTuple([field.int4(from + i)])));

function start(signal = new AbortController().signal) {
  const fake = fakeLease();
  const sut = new CopyTableSource({
    lease: fake.lease,
    table: 'orders',
    plan: { fields, sql: 'COPY (SELECT "id" FROM "orders") TO STDOUT (FORMAT binary)' },
    signal,
    chunkBytes: 8, // every row fills a chunk
    maxQueued: 2,
  });
  return { sut, ...fake };
}

async function text(item: CursorItem | null): Promise<string> {
  if (!item || !isEncodedRows(item)) throw new Error('expected encoded rows');
  return Buffer.from(item.encoded).toString();
}

describe(CopyTableSource.name, () => {
  it('streams encoded rows, pausing the socket while two chunks wait and resuming once they are taken', async () => {
    const { sut, stream, query, lease } = start();
    stream.emit('data', Buffer.concat([message('H', Buffer.from([1, 0, 0])), data(Buffer.concat([copyHeader(), rows(1, 3)]))]));
    expect(stream.pause).toHaveBeenCalled();
    expect(await text(await sut.next())).toBe('{"id":1}');
    expect(await text(await sut.next())).toBe('{"id":2}');
    expect(await text(await sut.next())).toBe('{"id":3}');
    expect(stream.resume).toHaveBeenCalled();
    stream.emit('data', Buffer.concat([data(COPY_TRAILER), message('c'), message('C', Buffer.from('COPY 3\0')), message('Z', Buffer.from('I'))]));
    query().handleReadyForQuery(); // what pg does on the ReadyForQuery it was handed back
    expect(await sut.next()).toBeNull();
    await sut.close();
    expect(lease.released).toEqual([true]);
    expect(lease.cancels).toBe(0);
  });

  it('cancels the statement and keeps the session when closed early', async () => {
    const { sut, stream, lease } = start();
    stream.emit('data', Buffer.concat([message('H', Buffer.from([1, 0, 0])), data(Buffer.concat([copyHeader(), rows(1, 5)]))]));
    expect(await text(await sut.next())).toBe('{"id":1}');
    await sut.close();
    await sut.close();
    expect(lease.cancels).toBe(1);
    expect(stream.resume).toHaveBeenCalled(); // reads on to the end of the statement
    expect(lease.released).toEqual([true]);
  });

  it('rejects next() at once when the signal aborts, and cancels on close', async () => {
    const controller = new AbortController();
    const { sut, lease } = start(controller.signal);
    const pending = sut.next();
    controller.abort();
    await expect(pending).rejects.toMatchObject({ category: 'canceled' });
    await sut.close();
    expect(lease.cancels).toBe(1);
  });

  it('reports the server cancelling on its own (statement_timeout) as a timeout', async () => {
    const { sut, query, lease } = start();
    query().handleError(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }));
    await expect(sut.next()).rejects.toMatchObject({ category: 'timeout', message: 'datasource query timed out' });
    await sut.close();
    expect(lease.released).toEqual([false]);
  });

  it('passes an encoding failure on; the session stays usable once the server has ended the statement', async () => {
    const { sut, stream, query, lease } = start();
    stream.emit('data', Buffer.concat([message('H', Buffer.from([1, 0, 0])), data(Buffer.from('not a COPY header at all'))]));
    await expect(sut.next()).rejects.toMatchObject({ category: 'unavailable' });
    query().handleReadyForQuery();
    await sut.close();
    expect(lease.released).toEqual([true]);
  });
});
