import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DeliveredMessage, jobPublisherContract } from '@fetcher/manager/testing';
import { InProcessJobPublisher } from './job-publisher.in-process';
import { InProcessWorkQueue } from './work-queue';

describe(InProcessJobPublisher.name, () => {
  const dir = mkdtempSync(join(tmpdir(), 'fetcher-job-publisher-contract-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;

  describe('the job publisher contract', () => {
    jobPublisherContract(async ({ workQueue, signingKey, clock }) => {
      const root = join(dir, String(++n));
      const queue = await InProcessWorkQueue.open(join(root, 'queue'), join(root, 'dead-letter'));
      // The standalone Worker's view: every message the queue hands its consumer, acknowledged.
      const delivered: DeliveredMessage[] = [];
      queue.consume((message) => {
        delivered.push(message);
        return Promise.resolve('ack');
      }, 1);
      return {
        publisher: new InProcessJobPublisher(queue, workQueue, signingKey, clock),
        delivered: () => Promise.resolve([...delivered]),
        broken: async () => {
          // A queue whose directory is gone cannot store the message, so it must not confirm it.
          const gone = join(root, 'gone');
          const unusable = await InProcessWorkQueue.open(join(gone, 'queue'), join(gone, 'dead-letter'));
          rmSync(gone, { recursive: true, force: true });
          return new InProcessJobPublisher(unusable, workQueue, signingKey, clock);
        },
      };
    });
  });
});
