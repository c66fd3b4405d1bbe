import { calculateObjectSize, Long } from 'bson';
import type { BsonDocument } from '../bson/bson-values';
import { CommandError } from '../commands/command-error';
import { MAX_BSON_OBJECT_SIZE } from '../wire/op-code';

export const DEFAULT_FIRST_BATCH = 101;

interface OpenCursor {
  readonly namespace: string;
  readonly remaining: BsonDocument[];
}

export interface CursorReply extends BsonDocument {
  cursor: { id: Long; ns: string; firstBatch?: BsonDocument[]; nextBatch?: BsonDocument[] };
  ok: 1;
}

/**
 * Server-side cursors. Results are computed in full when the cursor opens (a snapshot), then handed
 * out in batches; like MongoDB, cursors outlive the connection that opened them.
 */
export class CursorRegistry {
  private readonly cursors = new Map<string, OpenCursor>();
  private nextId = 1;

  /** The first batch and, when documents remain and `singleBatch` is false, a live cursor id. */
  open(namespace: string, results: BsonDocument[], batchSize: number | undefined, singleBatch = false): CursorReply {
    const firstBatch = takeBatch(results, batchSize ?? DEFAULT_FIRST_BATCH);
    let id = Long.ZERO;
    if (results.length > 0 && !singleBatch) {
      id = Long.fromNumber(this.nextId++);
      this.cursors.set(id.toString(), { namespace, remaining: results });
    }
    return { cursor: { firstBatch, id, ns: namespace }, ok: 1 };
  }

  getMore(id: Long, namespace: string, batchSize: number | undefined): CursorReply {
    const key = id.toString();
    const cursor = this.cursors.get(key);
    if (!cursor || cursor.namespace !== namespace) {
      throw new CommandError('CursorNotFound', `cursor id ${key} not found`);
    }
    // Without batchSize a getMore returns as much as fits in one 16 MiB batch.
    const nextBatch = takeBatch(cursor.remaining, batchSize ?? Number.MAX_SAFE_INTEGER);
    const exhausted = cursor.remaining.length === 0;
    if (exhausted) this.cursors.delete(key);
    return { cursor: { nextBatch, id: exhausted ? Long.ZERO : id, ns: cursor.namespace }, ok: 1 };
  }

  /** Returns true if the cursor existed. */
  kill(id: Long): boolean {
    return this.cursors.delete(id.toString());
  }

  clear(): void {
    this.cursors.clear();
  }
}

/** Removes and returns up to `count` documents, stopping before the batch would pass 16 MiB. */
function takeBatch(source: BsonDocument[], count: number): BsonDocument[] {
  let bytes = 0;
  let taken = 0;
  while (taken < Math.min(count, source.length)) {
    bytes += calculateObjectSize(source[taken]);
    if (taken > 0 && bytes > MAX_BSON_OBJECT_SIZE) break;
    taken++;
  }
  return source.splice(0, taken);
}
