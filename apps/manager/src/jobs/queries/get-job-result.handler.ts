import { Inject, Logger } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { decryptResult, hmacMatches, ResultIntegrityError } from '@fetcher/platform';
import { MANAGER_CONFIG, type ManagerConfig } from '../../config/manager.config';
import { AppError } from '../../errors/app-error';
import { Errors } from '../../errors/catalogue';
import { JOB_REPOSITORY, type JobRepository } from '../../ports/job-repository.port';
import { RESULT_READER, ResultObjectMissing, type ResultReader } from '../../ports/result-reader.port';
import { ResultStaging, type VerifiedResult } from '../result/verified-result';
import { GetJobResultQuery } from './get-job-result.query';

/**
 * Reads a completed job's stored result, decrypts it (AES-256-GCM with the storage sub-key) into a
 * private staging file, and checks the HMAC-SHA256 of the plaintext against the job's `resultHmac`
 * (external sub-key): the platform's decryptor, the one `fetcher result decrypt` uses. During a key
 * rotation a result may be written under a previous key, so each key of the ring is tried, current
 * first, until one opens the AES-GCM envelope. No product check, as for reading the job.
 */
@QueryHandler(GetJobResultQuery)
export class GetJobResultHandler implements IQueryHandler<GetJobResultQuery, VerifiedResult> {
  readonly #logger = new Logger(GetJobResultHandler.name);

  constructor(
    @Inject(JOB_REPOSITORY) private readonly jobs: JobRepository,
    @Inject(RESULT_READER) private readonly reader: ResultReader,
    @Inject(MANAGER_CONFIG) private readonly config: ManagerConfig,
  ) {}

  async execute({ tenant, jobId }: GetJobResultQuery): Promise<VerifiedResult> {
    const job = await this.jobs.findById(tenant, jobId);
    if (!job) throw Errors.entityNotFound('job');
    if (job.status !== 'completed') throw Errors.resultNotReady(job.status);
    // A completed job always names its result; a record without one has nothing to send either.
    if (!job.resultPath || !job.resultHmac) throw Errors.resultGone();
    const { resultPath, resultHmac } = job;

    const staging = await ResultStaging.create();
    try {
      for (const keys of this.config.keyRing.all()) {
        let result;
        try {
          result = await decryptResult(await this.reader.open(resultPath), staging.writer(), { storage: keys.storage, externalHmac: keys.externalHmac });
        } catch (error) {
          if (error instanceof ResultIntegrityError) continue; // not this key (or not a valid object: no key will do)
          throw error;
        }
        // The envelope opened, so this was the key: a different HMAC means the plaintext is not what the Worker signed.
        if (!hmacMatches(resultHmac, result.hmac)) break;
        return staging.verified(jobId, result.plaintextBytes);
      }
      this.#logger.warn(`the stored result of job ${jobId} failed its integrity check; it was not sent`);
      throw Errors.resultIntegrity();
    } catch (error) {
      await staging.discard();
      if (error instanceof AppError) throw error;
      if (error instanceof ResultObjectMissing) throw Errors.resultGone();
      // The store could not be read (or stopped mid-object): the result may be fine, so no integrity error.
      this.#logger.warn(`the stored result of job ${jobId} could not be read (${error instanceof Error ? error.name : typeof error})`);
      throw Errors.serviceUnavailable();
    }
  }
}
