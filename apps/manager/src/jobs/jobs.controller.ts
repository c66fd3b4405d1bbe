import { Body, Controller, Get, Headers, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiBody, ApiExtraModels, ApiHeader, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Authorize } from '../auth/authorize.decorator';
import { MANAGER_CONFIG, type ManagerConfig } from '../config/manager.config';
import { Errors } from '../errors/catalogue';
import { ErrorBody, FieldErrorBody, InvalidFilterErrorBody, InvalidIncrementalErrorBody, SchemaValidationErrorBody } from '../http/error-bodies';
import { parseJsonObject } from '../http/json-body';
import { optionalProductName } from '../http/product-header';
import { jobRequestTenant } from '../http/request-tenant';
import { requireIdParam } from '../http/uuid-param';
import { CancelJobCommand } from './commands/cancel-job.command';
import { RetryJobCommand } from './commands/retry-job.command';
import { CreateJobCommand } from './commands/create-job.command';
import { CreateJobBody, IncrementalTableBody } from './dto/create-job.body';
import { parseCreateJobRequest } from './dto/create-job.request';
import { JobListResponse, jobListResponse } from './dto/job-list.response';
import { CreateJobResponse, createJobResponse, JobResponse, jobResponse } from './dto/job.response';
import { JOB_LIST_MAX_LIMIT, parseListJobsRequest } from './dto/list-jobs.request';
import { GetJobQuery } from './queries/get-job.query';
import { ListJobsQuery } from './queries/list-jobs.query';

/** Job creation (202 new, 200 duplicate), the job list, reading a job, cancel and retry. */
@ApiTags('jobs')
@ApiExtraModels(ErrorBody, FieldErrorBody, InvalidFilterErrorBody, InvalidIncrementalErrorBody, IncrementalTableBody, SchemaValidationErrorBody)
@ApiBearerAuth('bearer')
@ApiResponse({ status: 400, description: 'Validation error', type: ErrorBody })
@ApiResponse({ status: 401, description: 'Missing or unreadable token (plain text), when authorization is on' })
@ApiResponse({ status: 403, description: 'Not authorized (plain text), when authorization is on' })
@ApiResponse({ status: 500, description: 'Internal error, including a job that could not be dispatched', type: ErrorBody })
@Controller('v1/fetcher')
export class JobsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    @Inject(MANAGER_CONFIG) private readonly config: ManagerConfig,
  ) {}

  @Post()
  @Authorize('fetcher', 'post')
  @ApiOperation({ operationId: 'createJob', summary: 'Create an extraction job, or return the identical job created recently or still running' })
  @ApiBody({ type: CreateJobBody })
  @ApiResponse({ status: 202, description: 'New job, queued for the Worker', type: CreateJobResponse })
  @ApiResponse({ status: 200, description: 'Duplicate request: the existing job', type: CreateJobResponse })
  @ApiResponse({
    status: 400,
    description:
      'Missing mappedFields (FET-0402 with `fields`), filters that cannot be applied (FET-0415 with `errors`), an incremental request that cannot run (FET-0418 with `errors`), a table, field or filter field of a stored connection that does not exist (FET-1060 naming them, with the validate-schema report in `errors`), or another validation error',
    schema: {
      oneOf: [
        { $ref: getSchemaPath(FieldErrorBody) },
        { $ref: getSchemaPath(SchemaValidationErrorBody) },
        { $ref: getSchemaPath(InvalidFilterErrorBody) },
        { $ref: getSchemaPath(InvalidIncrementalErrorBody) },
        { $ref: getSchemaPath(ErrorBody) },
      ],
    },
  })
  @ApiResponse({ status: 413, description: 'Body over 4 MiB' })
  async create(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Body() body: unknown): Promise<CreateJobResponse> {
    const parsed = parseCreateJobRequest(parseJsonObject(body));
    if (!parsed.ok) throw Errors.parseFailed();
    const { job, duplicate } = await this.commands.execute(new CreateJobCommand(jobRequestTenant(this.config.tenancy, request), parsed.request));
    void reply.status(duplicate ? 200 : 202);
    return createJobResponse(job, duplicate);
  }

  @Get()
  @Authorize('fetcher', 'get')
  @ApiOperation({ operationId: 'listJobs', summary: "List the caller's jobs, newest first, a page at a time" })
  @ApiHeader({ name: 'X-Product-Name', required: false, description: "Lists only this product's jobs (those whose metadata.source it is)" })
  @ApiQuery({ name: 'status', required: false, isArray: true, enum: ['pending', 'processing', 'completed', 'failed', 'canceled'], description: 'Repeatable, or comma-separated' })
  @ApiQuery({ name: 'createdFrom', required: false, description: 'RFC 3339 date-time or date; inclusive' })
  @ApiQuery({ name: 'createdTo', required: false, description: 'RFC 3339 date-time or date; exclusive' })
  @ApiQuery({ name: 'configName', required: false, description: 'Only jobs that map this datasource' })
  @ApiQuery({ name: 'cursor', required: false, description: 'The nextCursor of the previous page' })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: JOB_LIST_MAX_LIMIT, default: 20 } })
  @ApiResponse({ status: 200, description: 'A page of jobs', type: JobListResponse })
  @ApiResponse({ status: 400, description: 'Bad X-Product-Name (FET-0403), parameter (FET-0416), cursor (FET-0417) or limit over 100 (FET-0406)', type: ErrorBody })
  async list(@Headers('x-product-name') productHeader: unknown, @Query() query: Record<string, unknown>, @Req() request: FastifyRequest): Promise<JobListResponse> {
    const product = optionalProductName(productHeader);
    const parsed = parseListJobsRequest(query);
    return jobListResponse(await this.queries.execute(new ListJobsQuery(jobRequestTenant(this.config.tenancy, request), product, parsed)));
  }

  @Get(':id')
  @Authorize('fetcher', 'get')
  @ApiOperation({ operationId: 'getJob', summary: 'Read a job, with the progress the Worker reports while it runs' })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiResponse({ status: 200, description: 'The job', type: JobResponse })
  @ApiResponse({ status: 400, description: 'Not a UUID (FET-0404)', type: ErrorBody })
  @ApiResponse({ status: 404, description: 'Not found (FET-1001)', type: ErrorBody })
  async get(@Param('id') id: string, @Req() request: FastifyRequest): Promise<JobResponse> {
    const jobId = requireIdParam(id, 'job');
    return jobResponse(await this.queries.execute(new GetJobQuery(jobRequestTenant(this.config.tenancy, request), jobId)));
  }

  @Post(':id/cancel')
  @Authorize('fetcher', 'post')
  @ApiOperation({ operationId: 'cancelJob', summary: 'Cancel a job: at once while pending, by stopping its Worker while processing' })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiResponse({ status: 200, description: 'The job is canceled (now, or already)', type: JobResponse })
  @ApiResponse({ status: 202, description: 'The job is processing; its Worker was asked to stop and will write canceled', type: JobResponse })
  @ApiResponse({ status: 404, description: 'No such job (FET-1001)', type: ErrorBody })
  @ApiResponse({ status: 409, description: 'The job already completed or failed (FET-1022)', type: ErrorBody })
  async cancel(@Param('id') id: string, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<JobResponse> {
    const jobId = requireIdParam(id, 'job');
    const { job, stopping } = await this.commands.execute(new CancelJobCommand(jobRequestTenant(this.config.tenancy, request), jobId));
    void reply.status(stopping ? 202 : 200);
    return jobResponse(job);
  }

  @Post(':id/retry')
  @Authorize('fetcher', 'post')
  @ApiOperation({ operationId: 'retryJob', summary: 'Retry a failed or canceled job as a new job with the same request' })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiResponse({ status: 202, description: 'The new job (retryOf names the retried one), queued for the Worker', type: JobResponse })
  @ApiResponse({ status: 200, description: 'The job was retried already: its retry', type: JobResponse })
  @ApiResponse({ status: 404, description: 'No such job (FET-1001)', type: ErrorBody })
  @ApiResponse({ status: 409, description: 'The job is not failed or canceled, or an identical request is active (FET-1023)', type: ErrorBody })
  async retry(@Param('id') id: string, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<JobResponse> {
    const jobId = requireIdParam(id, 'job');
    const { job, created } = await this.commands.execute(new RetryJobCommand(jobRequestTenant(this.config.tenancy, request), jobId));
    void reply.status(created ? 202 : 200);
    return jobResponse(job);
  }
}
