import { formatBytes } from '../src/format';

describe('formatBytes', () => {
  it('keeps small sizes exact and rounds larger ones to binary units', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1,023 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(20 * 1024)).toBe('20 KiB');
    expect(formatBytes(5 * 1024 * 1024 + 1)).toBe('5.0 MiB');
    expect(formatBytes(3 * 1024 ** 4)).toBe('3.0 TiB');
    expect(formatBytes(2048 * 1024 ** 4)).toBe('2048 TiB');
  });
});
