import { createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResultStoreRefused } from '../../ports/result-store.port';
import { InMemoryResultStore } from '../../testing/in-memory-result-store';
import { EncryptingResultSink } from './encrypting-result-sink';
import { RESULT_SINK_TEXT } from './result-sink-error';

const tenant = { tenantId: 'acme' };
const keys = { externalHmac: randomBytes(32), storage: randomBytes(32) };

function decrypt(object: Buffer): Buffer {
  const raw = Buffer.from(object.toString('latin1'), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', keys.storage, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
}

describe.each([
  ['streamed from the spool', true],
  ['as Buffers', false],
])(`${EncryptingResultSink.name}, bodies %s`, (_how, streaming) => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'sink-spec-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const setup = (partBytes: number, multipartThresholdBytes?: number, inMemoryBytes?: number) => {
    const store = new InMemoryResultStore({ streaming });
    const spoolPath = join(dir, 'spool', 'job-token.b64');
    const sleeps: number[] = [];
    const sut = new EncryptingResultSink(store, { objectKey: 'p/acme/external-data/j.json', resultPath: 'acme/external-data/j.json', spoolPath }, keys, {
      partBytes,
      ...(multipartThresholdBytes === undefined ? {} : { multipartThresholdBytes }),
      ...(inMemoryBytes === undefined ? {} : { inMemoryBytes }),
      maxInFlight: 2,
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
    });
    return { store, sut, spoolPath, sleeps };
  };

  const plaintext = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => `{"row":${i}}`).join(','));

  it.each([1, 2, 3, 7, 1000])('stores a small result with one PutObject, in chunks of %d bytes', async (chunk) => {
    const { store, sut, spoolPath } = setup(1 << 20);
    const data = plaintext(500);
    const writer = await sut.openResultStream(tenant, {});
    expect(statSync(spoolPath).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'spool')).mode & 0o777).toBe(0o700);
    for (let i = 0; i < data.length; i += chunk) await writer.write(data.subarray(i, i + chunk));
    const reference = await writer.close();
    expect(store.calls).toEqual(['putObject']);
    const object = store.objects.get('p/acme/external-data/j.json') as Buffer;
    expect(decrypt(object)).toEqual(data);
    const hmac = createHmac('sha256', keys.externalHmac).update(data).digest('hex');
    expect(reference).toMatchObject({ path: 'acme/external-data/j.json', sizeBytes: data.length, integrity: { algorithm: 'HMAC-SHA256', signature: hmac } });
    expect(sut.sealed).toEqual({ hmac, plaintextBytes: data.length, storedBytes: object.length });
    expect(existsSync(spoolPath)).toBe(false);
  });

  it('re-reads a failed part from the spool file and still completes', async () => {
    const { store, sut } = setup(4096);
    store.failNext('uploadPart', 3);
    const data = plaintext(3000);
    const writer = await sut.openResultStream(tenant, {});
    await writer.write(data);
    await writer.close();
    expect(decrypt(store.objects.get('p/acme/external-data/j.json') as Buffer)).toEqual(data);
  });

  it('uploads parts while writing and completes a multipart upload', async () => {
    const { store, sut } = setup(4096);
    const data = plaintext(5000);
    const writer = await sut.openResultStream(tenant, {});
    let partsBeforeClose = 0;
    for (let i = 0; i < data.length; i += 999) await writer.write(data.subarray(i, i + 999));
    partsBeforeClose = store.calls.filter((c) => c === 'uploadPart').length;
    await writer.close();
    expect(partsBeforeClose).toBeGreaterThan(3);
    expect(store.calls.at(-1)).toBe('completeMultipart');
    expect(decrypt(store.objects.get('p/acme/external-data/j.json') as Buffer)).toEqual(data);
  });

  it('sends a result up to the multipart threshold as one PutObject at the end, however many parts it spans', async () => {
    const { store, sut } = setup(4096, 1 << 20);
    const data = plaintext(5000);
    const writer = await sut.openResultStream(tenant, {});
    for (let i = 0; i < data.length; i += 999) await writer.write(data.subarray(i, i + 999));
    expect(store.calls).toEqual([]);
    await writer.close();
    expect(store.calls.filter((c) => c !== 'putObject' && c !== 'putObjectFrom')).toEqual([]);
    expect(store.calls).toHaveLength(1);
    expect(decrypt(store.objects.get('p/acme/external-data/j.json') as Buffer)).toEqual(data);
  });

  it('starts the multipart upload once the result passes the threshold, with the parts written so far', async () => {
    const { store, sut } = setup(4096, 20_000);
    const data = plaintext(5000);
    const writer = await sut.openResultStream(tenant, {});
    let spoolBytes = 0;
    for (let i = 0; i < data.length; i += 999) {
      await writer.write(data.subarray(i, i + 999));
      spoolBytes += 999 * (4 / 3);
      if (spoolBytes < 18_000) expect(store.calls).toEqual([]);
    }
    expect(store.calls[0]).toBe('createMultipart');
    expect(store.calls.filter((c) => c === 'uploadPart' || c === 'uploadPartFrom').length).toBeGreaterThanOrEqual(5);
    await writer.close();
    expect(store.calls.at(-1)).toBe('completeMultipart');
    expect(decrypt(store.objects.get('p/acme/external-data/j.json') as Buffer)).toEqual(data);
  });

  it('retries a failed upload from the spool with the 1 s and 4 s backoff', async () => {
    const { store, sut, sleeps } = setup(1 << 20);
    store.failNext('putObject', 2);
    const data = plaintext(3000);
    const writer = await sut.openResultStream(tenant, {});
    await writer.write(data);
    await writer.close();
    expect(sleeps).toEqual([1000, 4000]);
    expect(decrypt(store.objects.get('p/acme/external-data/j.json') as Buffer)).toEqual(data);
  });

  it('fails after three attempts, aborts the upload, leaves no object and no spool file', async () => {
    const { store, sut, spoolPath } = setup(4096);
    store.failNext('uploadPart', 100);
    const writer = await sut.openResultStream(tenant, {});
    const data = plaintext(20_000);
    await expect((async () => {
      for (let i = 0; i < data.length; i += 4096) await writer.write(data.subarray(i, i + 4096));
      await writer.close();
    })()).rejects.toThrow(RESULT_SINK_TEXT.storage_unavailable);
    await writer.abort(undefined as never);
    expect(store.objects.size).toBe(0);
    expect(store.uploads.size).toBe(0);
    expect(store.aborted).toBe(1);
    expect(existsSync(spoolPath)).toBe(false);
  });

  it('does not retry an abort the store refuses for good (a cancel must not wait out the backoff)', async () => {
    const { store, sut, sleeps, spoolPath } = setup(4096);
    let aborts = 0;
    store.abortMultipart = () => {
      aborts++;
      return Promise.reject(new ResultStoreRefused());
    };
    const writer = await sut.openResultStream(tenant, {});
    const data = plaintext(20_000);
    for (let i = 0; i < data.length; i += 4096) await writer.write(data.subarray(i, i + 4096));
    expect(store.calls[0]).toBe('createMultipart');
    await writer.abort(undefined as never);
    expect(aborts).toBe(1);
    expect(sleeps).toEqual([]);
    expect(store.objects.size).toBe(0);
    expect(existsSync(spoolPath)).toBe(false);
  });

  it('an abort stops a part the store never answers, without retrying it, then aborts the upload (a cancel on a stalled link)', async () => {
    const { store, sut, sleeps, spoolPath } = setup(4096);
    let started = 0;
    let stopped = 0;
    // A part whose request gets no answer: it ends only when its signal is aborted.
    const stalled = (signal?: AbortSignal): Promise<string> => {
      started++;
      return new Promise((_resolve, reject) => {
        const stop = () => {
          stopped++;
          reject(new Error('aborted'));
        };
        if (signal?.aborted) stop();
        else signal?.addEventListener('abort', stop, { once: true });
      });
    };
    store.uploadPart = (_key: string, _id: string, _n: number, _body: Buffer, signal?: AbortSignal) => stalled(signal);
    if (streaming) (store as { uploadPartFrom: unknown }).uploadPartFrom = (_key: string, _id: string, _n: number, _body: unknown, signal?: AbortSignal) => stalled(signal);
    const writer = await sut.openResultStream(tenant, {});
    const data = plaintext(20_000);
    // Up to the first part: once a write has created the upload, that part is on its way.
    for (let i = 0; !store.calls.includes('createMultipart') && i < data.length; i += 512) await writer.write(data.subarray(i, i + 512));
    await writer.abort(undefined as never);
    expect(started).toBe(1);
    expect(stopped).toBe(1);
    expect(sleeps).toEqual([]);
    expect(store.aborted).toBe(1);
    expect(store.uploads.size).toBe(0);
    expect(store.objects.size).toBe(0);
    expect(existsSync(spoolPath)).toBe(false);
  });

  it('fails a small result when PutObject keeps failing', async () => {
    const { store, sut, spoolPath } = setup(1 << 20);
    store.failNext('putObject', 3);
    const writer = await sut.openResultStream(tenant, {});
    await writer.write(plaintext(10));
    await expect(writer.close()).rejects.toThrow(RESULT_SINK_TEXT.storage_unavailable);
    expect(store.objects.size).toBe(0);
    expect(existsSync(spoolPath)).toBe(false);
  });

  describe('a result within the in-memory limit', () => {
    const spoolFiles = () => (existsSync(join(dir, 'spool')) ? readdirSync(join(dir, 'spool')) : []);

    it.each([1, 7, 1000])('is stored with one PutObject of the buffer, no spool file at any point, in chunks of %d bytes', async (chunk) => {
      const { store, sut, spoolPath } = setup(1 << 20, undefined, 64 * 1024);
      const data = plaintext(500);
      const writer = await sut.openResultStream(tenant, {});
      for (let i = 0; i < data.length; i += chunk) {
        await writer.write(data.subarray(i, i + chunk));
        expect(existsSync(spoolPath)).toBe(false);
      }
      await writer.close();
      expect(store.calls).toEqual(['putObject']);
      const object = store.objects.get('p/acme/external-data/j.json') as Buffer;
      expect(decrypt(object)).toEqual(data);
      expect(sut.sealed).toEqual({ hmac: createHmac('sha256', keys.externalHmac).update(data).digest('hex'), plaintextBytes: data.length, storedBytes: object.length });
      expect(spoolFiles()).toEqual([]);
    });

    it('is stored exactly at the limit without a spool file, and one byte past it goes to the spool file', async () => {
      const data = plaintext(300);
      // The stored text: base64 of nonce (12) || ciphertext || tag (16).
      const stored = 4 * Math.ceil((12 + data.length + 16) / 3);
      const created: boolean[] = [];
      for (const limit of [stored, stored - 1]) {
        const { store, sut, spoolPath } = setup(1 << 20, undefined, limit);
        const writer = await sut.openResultStream(tenant, {});
        await writer.write(data);
        // The base64 encoder holds back up to two bytes until `close`: look at the spool there.
        const spoolSeen = new Promise<boolean>((resolve) => {
          const put = store.putObject.bind(store);
          store.putObject = (key, body) => (resolve(existsSync(spoolPath)), put(key, body));
        });
        await writer.close();
        created.push(await spoolSeen);
        expect(decrypt(store.objects.get('p/acme/external-data/j.json') as Buffer)).toEqual(data);
        expect(existsSync(spoolPath)).toBe(false);
      }
      expect(created).toEqual([false, true]);
    });

    it('retries a failed PutObject of the buffer with the 1 s and 4 s backoff', async () => {
      const { store, sut, sleeps } = setup(1 << 20, undefined, 64 * 1024);
      store.failNext('putObject', 2);
      const data = plaintext(3000);
      const writer = await sut.openResultStream(tenant, {});
      await writer.write(data);
      await writer.close();
      expect(sleeps).toEqual([1000, 4000]);
      expect(store.calls).toEqual(['putObject', 'putObject', 'putObject']);
      expect(decrypt(store.objects.get('p/acme/external-data/j.json') as Buffer)).toEqual(data);
    });

    it('is stored when the spool cannot be written at all; a larger result still fails on the spool', async () => {
      writeFileSync(join(dir, 'spool'), 'not a directory');
      const small = setup(1 << 20, undefined, 64 * 1024);
      const writer = await small.sut.openResultStream(tenant, {});
      await writer.write(plaintext(500));
      await writer.close();
      expect(decrypt(small.store.objects.get('p/acme/external-data/j.json') as Buffer)).toEqual(plaintext(500));

      const large = setup(1 << 20, undefined, 1024);
      const failing = await large.sut.openResultStream(tenant, {});
      await expect(failing.write(plaintext(500))).rejects.toThrow(RESULT_SINK_TEXT.spool_io);
      await failing.abort(undefined as never);
      expect(large.store.calls).toEqual([]);
    });

    it('moves to the spool file once past the limit and goes on as before: owner-only file, parts, no file left', async () => {
      const { store, sut, spoolPath } = setup(4096, 20_000, 8 * 1024);
      const data = plaintext(5000);
      const writer = await sut.openResultStream(tenant, {});
      expect(existsSync(spoolPath)).toBe(false);
      let spoolBytes = 16;
      for (let i = 0; i < data.length; i += 999) {
        await writer.write(data.subarray(i, i + 999));
        spoolBytes += 999 * (4 / 3);
        if (spoolBytes < 8 * 1024 - 8) expect(existsSync(spoolPath)).toBe(false);
        if (spoolBytes > 8 * 1024 + 8) expect(statSync(spoolPath).mode & 0o777).toBe(0o600);
      }
      expect(store.calls[0]).toBe('createMultipart');
      await writer.close();
      expect(store.calls.at(-1)).toBe('completeMultipart');
      expect(decrypt(store.objects.get('p/acme/external-data/j.json') as Buffer)).toEqual(data);
      expect(existsSync(spoolPath)).toBe(false);
    });

    it('leaves nothing behind when disposed before it closed', async () => {
      const { sut, store } = setup(1 << 20, undefined, 64 * 1024);
      const writer = await sut.openResultStream(tenant, {});
      await writer.write(plaintext(10));
      await sut.dispose();
      expect(spoolFiles()).toEqual([]);
      expect(store.calls).toEqual([]);
    });
  });

  it('dispose removes the spool file of an extraction that never closed', async () => {
    const { sut, spoolPath } = setup(1 << 20);
    const writer = await sut.openResultStream(tenant, {});
    await writer.write(plaintext(10));
    await sut.dispose();
    expect(existsSync(spoolPath)).toBe(false);
  });
});
