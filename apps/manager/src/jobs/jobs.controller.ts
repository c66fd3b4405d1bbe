import { Body, Controller, Inject, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiBody, ApiExtraModels, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Authorize } from '../auth/authorize.decorator';
import { MANAGER_CONFIG, type ManagerConfig } from '../config/manager.config';
import { Errors } from '../errors/catalogue';
import { ErrorBody, FieldErrorBody, InvalidFilterErrorBody } from '../http/error-bodies';
import { parseJsonObject } from '../http/json-body';
import { jobRequestTenant } from '../http/request-tenant';
import { CreateJobCommand } from './commands/create-job.command';
import { CreateJobBody } from './dto/create-job.body';
import { parseCreateJobRequest } from './dto/create-job.request';
import { CreateJobResponse, createJobResponse } from './dto/job.response';

/** Job creation (202 new, 200 duplicate). Reading a job is `job-status.route.ts`, served by Fastify directly. */
@ApiTags('jobs')
@ApiExtraModels(ErrorBody, FieldErrorBody, InvalidFilterErrorBody)
@ApiBearerAuth('bearer')
@ApiResponse({ status: 400, description: 'Validation error', type: ErrorBody })
@ApiResponse({ status: 401, description: 'Missing or unreadable token (plain text), when authorization is on' })
@ApiResponse({ status: 403, description: 'Not authorized (plain text), when authorization is on' })
@ApiResponse({ status: 500, description: 'Internal error, including a job that could not be dispatched', type: ErrorBody })
@Controller('v1/fetcher')
export class JobsController {
  constructor(
    private readonly commands: CommandBus,
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
    description: 'Missing mappedFields (FET-0402 with `fields`), filters that cannot be applied (FET-0415 with `errors`), or another validation error',
    schema: { oneOf: [{ $ref: getSchemaPath(FieldErrorBody) }, { $ref: getSchemaPath(InvalidFilterErrorBody) }, { $ref: getSchemaPath(ErrorBody) }] },
  })
  @ApiResponse({ status: 413, description: 'Body over 4 MiB' })
  async create(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Body() body: unknown): Promise<CreateJobResponse> {
    const parsed = parseCreateJobRequest(parseJsonObject(body));
    if (!parsed.ok) throw Errors.parseFailed();
    const { job, duplicate } = await this.commands.execute(new CreateJobCommand(jobRequestTenant(this.config.tenancy.tenantId, request), parsed.request));
    void reply.status(duplicate ? 200 : 202);
    return createJobResponse(job, duplicate);
  }
}
