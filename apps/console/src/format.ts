/** Small display helpers shared by the pages. */

export function formatTime(iso: string | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

/** The end of a UUIDv7 is random, its start a timestamp: jobs created together differ only at the end. */
export function shortId(id: string): string {
  return id.slice(-8);
}

export function datasourcesOf(mapped: Record<string, unknown>): string {
  return Object.keys(mapped).join(', ');
}

/** The Worker's failure text, or the Manager's, as the job's metadata carries it. */
export function failureReason(metadata: Record<string, unknown> | undefined): string | undefined {
  const error = metadata?.error;
  return typeof error === 'string' && error !== '' ? error : undefined;
}

/** A byte count as people read it, with the exact figure kept for the title: 1,536 -> "1.5 KiB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes.toLocaleString('en')} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
