import { Readable } from 'node:stream';
import type { Row } from '@fetcher/engine';
import { ReadableTableRows } from './readable-rows';

const setup = (signal = new AbortController().signal) => {
  const readable = new Readable({ objectMode: true, highWaterMark: 2, read: () => undefined });
  const cancel = jest.fn();
  const release = jest.fn();
  const sut = new ReadableTableRows<{ v: number }>({
    readable,
    signal,
    mapRow: (raw): Row => ({ doubled: raw.v * 2 }),
    cancel,
    release,
    mapError: (error) => new Error(`mapped: ${(error as Error).message}`),
  });
  return { readable, cancel, release, sut };
};

describe(ReadableTableRows.name, () => {
  it('maps every row and releases the connection as completed at the end', async () => {
    const { readable, release, cancel, sut } = setup();
    readable.push({ v: 1 });
    readable.push({ v: 2 });
    readable.push(null);
    expect(await sut.next()).toEqual({ doubled: 2 });
    expect(await sut.next()).toEqual({ doubled: 4 });
    expect(await sut.next()).toBeNull();
    expect(await sut.next()).toBeNull();
    expect(release).toHaveBeenCalledTimes(1);
    expect(release).toHaveBeenCalledWith(true);
    expect(cancel).not.toHaveBeenCalled();
  });

  it('stops the driver and rejects a pending read when the signal aborts', async () => {
    const controller = new AbortController();
    const { cancel, release, readable, sut } = setup(controller.signal);
    const pending = sut.next();
    controller.abort();
    await expect(pending).rejects.toMatchObject({ category: 'canceled' });
    expect(cancel).toHaveBeenCalledTimes(1);
    expect(readable.destroyed).toBe(true);
    expect(release).toHaveBeenCalledWith(false);
  });

  it('cancels, destroys and releases as interrupted on early close, once', async () => {
    const { readable, cancel, release, sut } = setup();
    readable.push({ v: 1 });
    await sut.next();
    await sut.close();
    await sut.close();
    expect(cancel).toHaveBeenCalledTimes(1);
    expect(readable.destroyed).toBe(true);
    expect(release).toHaveBeenCalledTimes(1);
    expect(release).toHaveBeenCalledWith(false);
    expect(await sut.next()).toBeNull();
  });

  it('passes driver failures through mapError and drops the connection', async () => {
    const { readable, release, sut } = setup();
    const pending = sut.next();
    readable.destroy(new Error('boom'));
    await expect(pending).rejects.toThrow('mapped: boom');
    expect(release).toHaveBeenCalledWith(false);
  });

  it('keeps a late stream error after close from becoming uncaught', async () => {
    const { readable, sut } = setup();
    await sut.close();
    expect(() => readable.emit('error', new Error('late'))).not.toThrow();
  });
});
