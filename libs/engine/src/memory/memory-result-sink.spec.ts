import { createHash } from 'node:crypto';
import { EngineError } from '../index';
import { TENANT } from '../testing/engine-fixture';
import { MemoryResultSink } from './memory-result-sink';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

describe(MemoryResultSink.name, () => {
  it('stores the written bytes under memory://<tenant>/<sha256>-<seq> with integrity and size', async () => {
    const sut = new MemoryResultSink();
    const writer = await sut.openResultStream(TENANT, { requestId: 'r1' });
    await writer.write(bytes('{"a":'));
    await writer.write(bytes('1}'));
    const reference = await writer.close();
    const digest = createHash('sha256').update('{"a":1}').digest('hex');
    expect(reference).toMatchObject({ path: `memory://acme/${digest}-1`, sizeBytes: 7, integrity: { algorithm: 'SHA-256', digest } });
    expect(new TextDecoder().decode(sut.get(reference.path))).toBe('{"a":1}');
    expect([sut.openCount, sut.storedCount, sut.writeSizes, sut.requestIds]).toEqual([1, 1, [5, 2], ['r1']]);
  });

  it('fails each stage on its knob, and counts aborts without ever throwing from abort', async () => {
    const sut = new MemoryResultSink();
    sut.openErr = new Error('open');
    await expect(sut.openResultStream(TENANT, {})).rejects.toThrow('open');
    sut.openErr = undefined;
    sut.writeErr = true;
    const writer = await sut.openResultStream(TENANT, {});
    await expect(writer.write(bytes('x'))).rejects.toThrow('memory sink write failed');
    sut.writeErr = undefined;
    sut.closeErr = new Error('close');
    await expect(writer.close()).rejects.toThrow('close');
    await writer.abort(new EngineError('canceled', 'execution canceled'));
    await writer.abort(new EngineError('canceled', 'execution canceled'));
    expect([sut.abortCount, sut.storedCount]).toEqual([2, 0]);
  });

  it('holds the first write at the gate, and reports the configured protection and omissions', async () => {
    const sut = new MemoryResultSink();
    let open!: () => void;
    sut.writeGate = new Promise<void>((resolve) => (open = resolve));
    sut.protectionResult = { encrypted: true, appliedBy: 'adapter' };
    sut.omitIntegrity = true;
    sut.omitSizeBytes = true;
    const writer = await sut.openResultStream(TENANT, {});
    let written = false;
    const first = writer.write(bytes('{}')).then(() => (written = true));
    await Promise.resolve();
    expect(written).toBe(false);
    open();
    await first;
    const reference = await writer.close();
    expect(reference.protection).toEqual({ encrypted: true, appliedBy: 'adapter' });
    expect(reference).not.toHaveProperty('integrity');
    expect(reference).not.toHaveProperty('sizeBytes');
  });
});
