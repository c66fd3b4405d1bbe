import { readdir } from 'node:fs/promises';
import { Logger } from '@nestjs/common';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { createTenantContext } from '@fetcher/engine';
import { aMasterKey, storedResult } from '@fetcher/platform/testing';
import { v7 as uuidv7 } from 'uuid';
import { loadManagerConfig, type ManagerConfig } from '../../config/manager.config';
import type { AppError } from '../../errors/app-error';
import { ResultObjectMissing, type ResultReader } from '../../ports/result-reader.port';
import { managerTestEnv } from '../../testing/manager-test-env';
import { TestJobRepository } from '../../testing/test-job-repository';
import type { Job, JobStatus } from '../job';
import { GetJobResultHandler } from './get-job-result.handler';
import { GetJobResultQuery } from './get-job-result.query';

const tenant = createTenantContext('default');

/** Objects by result path, as the Worker stored them; `fail` makes every read fail like an unreachable store. */
class FakeResultReader implements ResultReader {
  readonly objects = new Map<string, string>();
  fail?: Error;
  opened = 0;

  open(resultPath: string): Promise<Readable> {
    this.opened += 1;
    if (this.fail) return Promise.reject(this.fail);
    const object = this.objects.get(resultPath);
    if (object === undefined) return Promise.reject(new ResultObjectMissing());
    // Small chunks, so that the base64 quanta and the GCM tag straddle chunk borders.
    const chunks = object.match(/[\s\S]{1,7}/g) ?? [];
    return Promise.resolve(Readable.from(chunks));
  }
}

const configWith = (keys: { current: Buffer; previous?: Buffer }): ManagerConfig =>
  loadManagerConfig(
    managerTestEnv('mongodb://127.0.0.1:27017', {
      APP_ENC_KEY: keys.current.toString('base64'),
      APP_ENC_KEY_VERSION: '2',
      ...(keys.previous ? { APP_ENC_KEY_PREVIOUS: `1:${keys.previous.toString('base64')}` } : {}),
      RESULT_DOWNLOAD_ENABLED: 'true',
      OBJECT_STORAGE_BUCKET: 'results',
    }),
  );

const DOCUMENT = JSON.stringify({ jobId: 'x', data: { 'pg-main': { 'public.customers': [{ id: 1, name: 'Ada' }, { id: 2, name: 'Émile' }] } } });

describe(GetJobResultHandler.name, () => {
  beforeAll(() => Logger.overrideLogger(false));
  const setup = async (status: JobStatus, options: { master?: Buffer; previous?: Buffer; writtenWith?: Buffer; plaintext?: string } = {}) => {
    const master = options.master ?? aMasterKey();
    const jobs = new TestJobRepository();
    const reader = new FakeResultReader();
    const job: Job = {
      id: uuidv7(),
      status: 'pending',
      mappedFields: { 'pg-main': { 'public.customers': ['id', 'name'] } },
      metadata: { source: 'reporter' },
      requestHash: uuidv7(),
      createdAt: new Date('2026-01-01T00:00:00Z'),
      completedAt: null,
      dispatchedAt: null,
      dispatchAttempts: 0,
    };
    await jobs.insert(tenant, job);
    jobs.setStatus(tenant, job.id, status);
    const stored = storedResult(options.writtenWith ?? master, options.plaintext ?? DOCUMENT);
    const resultPath = `external-data/${job.id}.json`;
    if (status === 'completed') {
      Object.assign(jobs.jobTable.get(job.id)!, { resultPath, resultHmac: stored.hmac });
      reader.objects.set(resultPath, stored.object);
    }
    const sut = new GetJobResultHandler(jobs, reader, configWith({ current: master, ...(options.previous ? { previous: options.previous } : {}) }));
    return { sut, jobs, reader, job, stored, resultPath };
  };

  const refusal = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as AppError);
  const stagingDirs = async () => (await readdir(tmpdir())).filter((name) => name.startsWith('fetcher-result-'));

  it('decrypts a completed job\'s result, checks it, and hands over exactly the plaintext; release removes the staged copy', async () => {
    const { sut, job } = await setup('completed');
    const before = await stagingDirs();
    const result = await sut.execute(new GetJobResultQuery(tenant, job.id));
    expect(result).toMatchObject({ jobId: job.id, plaintextBytes: Buffer.byteLength(DOCUMENT) });
    expect(await text(result.open())).toBe(DOCUMENT);
    await result.release();
    expect(await stagingDirs()).toEqual(before);
  });

  it('answers FET-1001 for a job that does not exist', async () => {
    const { sut } = await setup('completed');
    expect(await refusal(sut.execute(new GetJobResultQuery(tenant, uuidv7())))).toMatchObject({ code: 'FET-1001', category: 'not_found' });
  });

  it.each(['pending', 'processing', 'failed', 'canceled'] as const)('answers FET-1024 (conflict) for a %s job, without reading the store', async (status) => {
    const { sut, job, reader } = await setup(status);
    const error = await refusal(sut.execute(new GetJobResultQuery(tenant, job.id)));
    expect(error).toMatchObject({ code: 'FET-1024', category: 'conflict', title: 'Result Not Available' });
    expect(error?.message).toContain(status);
    expect(reader.opened).toBe(0);
  });

  it('answers FET-1026 for an altered object, and keeps nothing of it', async () => {
    const { sut, job, reader, resultPath, stored } = await setup('completed');
    // One base64 character of the ciphertext changed: still valid base64, the GCM tag refuses it.
    const i = 40;
    const flipped = stored.object[i] === 'A' ? 'B' : 'A';
    reader.objects.set(resultPath, `${stored.object.slice(0, i)}${flipped}${stored.object.slice(i + 1)}`);
    const before = await stagingDirs();
    const error = await refusal(sut.execute(new GetJobResultQuery(tenant, job.id)));
    expect(error).toMatchObject({ code: 'FET-1026', category: 'internal', title: 'Result Integrity Error' });
    expect(error?.message).not.toMatch(/tag|base64|HMAC mismatch|authentication/i);
    expect(await stagingDirs()).toEqual(before);
  });

  it('answers FET-1026 when the plaintext does not match the job\'s HMAC', async () => {
    const { sut, job, jobs } = await setup('completed');
    jobs.jobTable.get(job.id)!.resultHmac = 'ab'.repeat(32);
    expect(await refusal(sut.execute(new GetJobResultQuery(tenant, job.id)))).toMatchObject({ code: 'FET-1026' });
  });

  it('answers FET-1026 for an object that is not base64 text at all', async () => {
    const { sut, job, reader, resultPath } = await setup('completed');
    reader.objects.set(resultPath, '{"not":"encrypted"}');
    expect(await refusal(sut.execute(new GetJobResultQuery(tenant, job.id)))).toMatchObject({ code: 'FET-1026' });
  });

  it('answers FET-1025 when the completed job\'s object is gone', async () => {
    const { sut, job, reader } = await setup('completed');
    reader.objects.clear();
    expect(await refusal(sut.execute(new GetJobResultQuery(tenant, job.id)))).toMatchObject({ code: 'FET-1025', category: 'not_found' });
  });

  it('answers FET-0003 (unavailable) when the store cannot be read, not an integrity error', async () => {
    const { sut, job, reader } = await setup('completed');
    reader.fail = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:9000'), { name: 'TimeoutError' });
    expect(await refusal(sut.execute(new GetJobResultQuery(tenant, job.id)))).toMatchObject({ code: 'FET-0003', category: 'unavailable' });
  });

  it('reads a result written under the previous key during a rotation', async () => {
    const old = aMasterKey();
    const { sut, job } = await setup('completed', { previous: old, writtenWith: old });
    const result = await sut.execute(new GetJobResultQuery(tenant, job.id));
    expect(await text(result.open())).toBe(DOCUMENT);
    await result.release();
  });

  it('refuses a result written under a key the ring does not hold', async () => {
    const { sut, job } = await setup('completed', { writtenWith: aMasterKey() });
    expect(await refusal(sut.execute(new GetJobResultQuery(tenant, job.id)))).toMatchObject({ code: 'FET-1026' });
  });
});
