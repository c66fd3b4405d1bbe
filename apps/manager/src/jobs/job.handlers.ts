import { CancelJobHandler } from './commands/cancel-job.handler';
import { CreateJobHandler } from './commands/create-job.handler';
import { RetryJobHandler } from './commands/retry-job.handler';
import { JobsController } from './jobs.controller';
import { GetJobHandler } from './queries/get-job.handler';
import { GetJobResultHandler } from './queries/get-job-result.handler';
import { ListJobsHandler } from './queries/list-jobs.handler';

/** The jobs feature as the composition root mounts it: controllers and handlers, no bindings. */
export const JOB_CONTROLLERS = [JobsController];
export const JOB_HANDLERS = [CreateJobHandler, GetJobHandler, ListJobsHandler, CancelJobHandler, RetryJobHandler];
/** Mounted only with RESULT_DOWNLOAD_ENABLED=true (its RESULT_READER is bound only then). */
export const JOB_RESULT_HANDLERS = [GetJobResultHandler];
