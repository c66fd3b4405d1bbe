import { QueryBus } from '@nestjs/cqrs';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthorizeRequirement } from '../auth/plugin-auth.options';
import { PluginAuthRejection, sendRejection } from '../auth/plugin-auth.rejection';
import { PluginAuthorizer } from '../auth/plugin-authorizer';
import { TenantGate } from '../auth/tenant-gate';
import { MANAGER_CONFIG, type ManagerConfig } from '../config/manager.config';
import { jobRequestTenant } from '../http/request-tenant';
import { requireIdParam } from '../http/uuid-param';
import { type JobResponse, jobResponse } from './dto/job.response';
import { GetJobQuery } from './queries/get-job.query';

const REQUIREMENT: AuthorizeRequirement = { resource: 'fetcher', action: 'get' };

type JobStatusRequest = FastifyRequest<{ Params: { id: string } }>;

/**
 * `GET /v1/fetcher/{id}`, the route clients poll while a job runs, served by Fastify directly rather
 * than through Nest's router: Nest's per-request pipeline (execution context, guards, pipes, filters)
 * cost more than the read itself. It is still the `GetJobQuery` on the query bus, behind the same
 * authorization, and everything else a request goes through applies as to any route: request id,
 * CORS, logging, metrics and spans (app-wide Fastify hooks), and error bodies (thrown errors reach
 * the app's error filter through the Fastify error handler that Nest installs).
 */
export function registerJobStatusRoute(app: NestFastifyApplication): void {
  const queries = app.get(QueryBus);
  const config = app.get<ManagerConfig>(MANAGER_CONFIG);
  // The app's one authorizer, the instance PluginAuthGuard uses on the controller routes.
  const authorizer = app.get(PluginAuthorizer);
  const gate = app.get(TenantGate);

  const read = async (request: JobStatusRequest): Promise<JobResponse> => {
    // Multi-tenant mode: the tenant guard, after plugin-auth as on the controller routes.
    if (gate.active) await gate.admit(request);
    const jobId = requireIdParam(request.params.id, 'job');
    return jobResponse(await queries.execute(new GetJobQuery(jobRequestTenant(config.tenancy, request), jobId)));
  };

  app.getHttpAdapter().getInstance().get('/v1/fetcher/:id', (request: JobStatusRequest, reply: FastifyReply) => {
    // Authorization first, as on every protected route: a caller without permission learns nothing about the id.
    const allowed = authorizer.check(request.headers, REQUIREMENT);
    if (allowed === true) return read(request);
    return allowed.then(
      () => read(request),
      (error: unknown) => {
        if (error instanceof PluginAuthRejection) return sendRejection(reply, error);
        throw error;
      },
    );
  });
}

const errorBody = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } });

/** The route's OpenAPI description: Nest's document generator sees only controller routes. */
export const JOB_STATUS_PATH_ITEM: OpenAPIObject['paths'][string] = {
  get: {
    operationId: 'getJob',
    summary: 'Read a job, with the progress the Worker reports while it runs',
    tags: ['jobs'],
    security: [{ bearer: [] }],
    parameters: [{ name: 'id', required: true, in: 'path', schema: { type: 'string', format: 'uuid' } }],
    responses: {
      '200': { description: 'The job', content: { 'application/json': { schema: { $ref: '#/components/schemas/JobResponse' } } } },
      '400': errorBody('Not a UUID (FET-0404)'),
      '401': { description: 'Missing or unreadable token (plain text), when authorization is on' },
      '403': { description: 'Not authorized (plain text), when authorization is on' },
      '404': errorBody('Not found (FET-1001)'),
      '500': errorBody('Internal error'),
    },
  },
};
