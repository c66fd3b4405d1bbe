import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventPublisherContract, type ReceivedEvent } from '../../testing/event-publisher.contract';
import { RecordingEventPublisher } from '../../testing/recording-event-publisher';
import { FileEventLog } from './event-log.fs';

/** The log's lines as a reader of `events.jsonl` gets them. */
async function readLog(path: string): Promise<ReceivedEvent[]> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? '' : Promise.reject(error)));
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { routingKey: string; headers: Record<string, unknown>; body: unknown })
    .map((e) => ({ routingKey: e.routingKey, headers: e.headers, body: Buffer.from(JSON.stringify(e.body), 'utf8') }));
}

describe(FileEventLog.name, () => {
  const dir = mkdtempSync(join(tmpdir(), 'fetcher-event-log-contract-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;

  describe('the event publisher contract', () => {
    eventPublisherContract(() => {
      const path = join(dir, `events-${++n}.jsonl`);
      return {
        publisher: new FileEventLog(path),
        received: () => readLog(path),
        broken: () => new FileEventLog(join(dir, 'missing', `events-${n}.jsonl`)),
      };
    });
  });
});

describe(RecordingEventPublisher.name, () => {
  describe('the event publisher contract', () => {
    eventPublisherContract(() => {
      const recorder = new RecordingEventPublisher();
      const broken = new RecordingEventPublisher();
      broken.failWith = new Error('broker down');
      return { publisher: recorder, received: () => Promise.resolve([...recorder.published, ...broken.published]), broken: () => broken };
    });
  });
});
