import { Controller, Get, Inject, Param, Req } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Authorize } from '../auth/authorize.decorator';
import { MANAGER_CONFIG, type ManagerConfig } from '../config/manager.config';
import { ErrorBody } from '../http/error-bodies';
import { jobRequestTenant } from '../http/request-tenant';
import { requireIdParam } from '../http/uuid-param';
import { JobResponse, jobResponse } from './dto/job.response';
import { GetJobQuery } from './queries/get-job.query';

/**
 * `GET /v1/fetcher/{id}` through Nest's pipeline (router, `@Authorize` guards, param pipes, filters),
 * mounted only with `ManagerModuleOptions.jobStatusFromController`: the standalone-http bench measures
 * it against the Fastify route (`job-status.route.ts`) in one run.
 */
@ApiTags('jobs')
@ApiBearerAuth('bearer')
@ApiResponse({ status: 401, description: 'Missing or unreadable token (plain text), when authorization is on' })
@ApiResponse({ status: 403, description: 'Not authorized (plain text), when authorization is on' })
@ApiResponse({ status: 500, description: 'Internal error', type: ErrorBody })
@Controller('v1/fetcher')
export class JobStatusController {
  constructor(
    private readonly queries: QueryBus,
    @Inject(MANAGER_CONFIG) private readonly config: ManagerConfig,
  ) {}

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
}
