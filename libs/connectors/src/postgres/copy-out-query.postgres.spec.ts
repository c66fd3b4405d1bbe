import { EventEmitter } from 'node:events';
import type { Connection } from 'pg';
import { CopyOutQuery } from './copy-out-query.postgres';
import { message } from './testing/copy-binary';

/** The bits of pg's Connection the query touches: a socket-like stream with pg's one 'data' listener. */
class FakeConnection {
  readonly stream = Object.assign(new EventEmitter(), { pause: jest.fn(), resume: jest.fn() });
  readonly sent: string[] = [];
  readonly pgReceived: Buffer[] = [];
  constructor() {
    this.stream.on('data', (chunk: Buffer) => this.pgReceived.push(chunk));
  }
  query(text: string): void {
    this.sent.push(text);
  }
  feed(data: Buffer, pieces: readonly number[] = []): void {
    let at = 0;
    for (const cut of [...pieces, data.length]) {
      if (cut > at) this.stream.emit('data', data.subarray(at, cut));
      at = cut;
    }
  }
}

function setup() {
  const payload: Buffer[] = [];
  const onChange = jest.fn();
  const sut = new CopyOutQuery('COPY x TO STDOUT (FORMAT binary)', (chunk, start, end) => payload.push(Buffer.from(chunk.subarray(start, end))), onChange);
  const connection = new FakeConnection();
  expect(sut.submit(connection as unknown as Connection)).toBeUndefined();
  return { sut, connection, payload, onChange };
}

const copyOut = message('H', Buffer.from([1, 0, 1, 0, 1]));
const notice = message('N', Buffer.from('SNOTICE\0\0'));
const data = (text: string) => message('d', Buffer.from(text));
const copyDone = message('c');
const complete = message('C', Buffer.from('COPY 2\0'));
const ready = message('Z', Buffer.from('I'));
const stream = Buffer.concat([copyOut, data('first'), notice, data('second'), copyDone, complete, ready]);

describe(CopyOutQuery.name, () => {
  it('sends the statement and reads copy data off the socket, handing the rest back to pg', () => {
    const { connection, payload } = setup();
    expect(connection.sent).toEqual(['COPY x TO STDOUT (FORMAT binary)']);
    connection.feed(stream);
    expect(Buffer.concat(payload).toString()).toBe('firstsecond');
    expect(Buffer.concat(connection.pgReceived)).toEqual(Buffer.concat([copyDone, complete, ready]));
    expect(connection.stream.listenerCount('data')).toBe(1);
  });

  it('gives the same bytes to both sides however the socket splits them', () => {
    for (let cut = 1; cut < stream.length; cut++) {
      const { connection, payload } = setup();
      connection.feed(stream, [cut]);
      expect(Buffer.concat(payload).toString()).toBe('firstsecond');
      expect(Buffer.concat(connection.pgReceived)).toEqual(Buffer.concat([copyDone, complete, ready]));
    }
    const { connection, payload } = setup();
    connection.feed(stream, Array.from({ length: stream.length - 1 }, (_, i) => i + 1));
    expect(Buffer.concat(payload).toString()).toBe('firstsecond');
    expect(Buffer.concat(connection.pgReceived)).toEqual(Buffer.concat([copyDone, complete, ready]));
  });

  it('hands an error response back to pg', () => {
    const { connection, payload } = setup();
    const error = message('E', Buffer.from('SERROR\0C57014\0\0'));
    connection.feed(Buffer.concat([copyOut, data('part'), error, ready]));
    expect(Buffer.concat(payload).toString()).toBe('part');
    expect(Buffer.concat(connection.pgReceived)).toEqual(Buffer.concat([error, ready]));
  });

  it('settles when pg reports the end or an error', async () => {
    const ok = setup();
    ok.sut.handleCommandComplete();
    ok.sut.handleReadyForQuery();
    await expect(ok.sut.finished).resolves.toBeUndefined();
    expect(ok.sut).toMatchObject({ settled: true, succeeded: true });
    expect(ok.onChange).toHaveBeenCalled();

    const failed = setup();
    const error = Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
    failed.sut.handleError(error);
    await expect(failed.sut.finished).rejects.toBe(error);
    expect(failed.sut).toMatchObject({ settled: true, succeeded: false });
    expect(failed.connection.stream.listenerCount('data')).toBe(1);
  });

  it('pauses and resumes the socket for back-pressure, and resumes it when it gives the socket back', () => {
    const { sut, connection } = setup();
    sut.pause();
    sut.pause();
    expect(connection.stream.pause).toHaveBeenCalledTimes(1);
    sut.resume();
    expect(connection.stream.resume).toHaveBeenCalledTimes(1);
    sut.pause();
    connection.feed(Buffer.concat([copyDone, ready]));
    expect(connection.stream.resume).toHaveBeenCalledTimes(2);
  });

  it('drops data after discard() but keeps parsing, so the statement can end', () => {
    const { sut, connection, payload } = setup();
    connection.feed(Buffer.concat([copyOut, data('kept')]));
    sut.discard();
    connection.feed(Buffer.concat([data('dropped'), copyDone, ready]));
    expect(Buffer.concat(payload).toString()).toBe('kept');
    expect(Buffer.concat(connection.pgReceived)).toEqual(Buffer.concat([copyDone, ready]));
  });

  it('records a failing payload handler, drops later data and signals the change', () => {
    const onChange = jest.fn();
    const failure = new Error('bad tuple');
    let calls = 0;
    const sut = new CopyOutQuery('COPY', () => {
      calls += 1;
      throw failure;
    }, onChange);
    const connection = new FakeConnection();
    sut.submit(connection as unknown as Connection);
    connection.feed(Buffer.concat([copyOut, data('a'), data('b'), copyDone]));
    expect(sut.failure).toBe(failure);
    expect(calls).toBe(1);
    expect(onChange).toHaveBeenCalledTimes(1);
  });

  it('refuses to start on a connection whose socket it does not recognise', () => {
    const sut = new CopyOutQuery('COPY', () => undefined, () => undefined);
    const connection = new FakeConnection();
    connection.stream.on('data', () => undefined);
    expect(sut.submit(connection as unknown as Connection)).toBeInstanceOf(Error);
    expect(connection.sent).toEqual([]);
  });
});
