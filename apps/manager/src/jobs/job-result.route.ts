import { QueryBus } from '@nestjs/cqrs';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { isLoopbackHost } from '@fetcher/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthorizeRequirement } from '../auth/plugin-auth.options';
import { PluginAuthRejection, sendRejection } from '../auth/plugin-auth.rejection';
import { PluginAuthorizer } from '../auth/plugin-authorizer';
import { TenantGate } from '../auth/tenant-gate';
import { MANAGER_CONFIG, type ManagerConfig } from '../config/manager.config';
import { jobRequestTenant } from '../http/request-tenant';
import { requireIdParam } from '../http/uuid-param';
import { GetJobResultQuery } from './queries/get-job-result.query';

/**
 * Its own grant, not the job routes' `fetcher`/`get`: reading a job's status says nothing about the
 * customer's data, the decrypted result is that data. The authorization service must allow it explicitly.
 */
export const RESULT_REQUIREMENT: AuthorizeRequirement = { resource: 'fetcher-result', action: 'get' };

/** CORS headers the app-wide hook set for any origin: this route keeps its body to same-origin pages. */
const CORS_HEADERS = ['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-expose-headers', 'vary'];

type JobResultRequest = FastifyRequest<{ Params: { id: string } }>;

/**
 * `GET /v1/fetcher/{id}/result`, registered only with RESULT_DOWNLOAD_ENABLED=true (otherwise the
 * path is an unknown route, 404). A Fastify route rather than a controller method because it answers
 * with a stream rather than a DTO; it goes through the same steps as the controller routes:
 *
 * - authorization first (plugin-auth resource `fetcher-result`, action `get`), then the tenant gate;
 * - no CORS: a page of another origin may not read the document (the console is same-origin);
 * - on a Manager that listens on loopback only (the standalone service), a request addressed by any
 *   other host name is a DNS-rebinding page and gets the unknown-route 404;
 * - the whole result is decrypted and checked (AES-GCM tag, HMAC) before the first byte is sent.
 */
export function registerJobResultRoute(app: NestFastifyApplication): void {
  const config = app.get<ManagerConfig>(MANAGER_CONFIG);
  if (!config.resultDownload.enabled) return;
  const queries = app.get(QueryBus);
  const authorizer = app.get(PluginAuthorizer);
  const gate = app.get(TenantGate);
  const loopbackOnly = config.http.host !== undefined && isLoopbackHost(config.http.host);

  const send = async (request: JobResultRequest, reply: FastifyReply): Promise<FastifyReply> => {
    if (gate.active) await gate.admit(request);
    const jobId = requireIdParam(request.params.id, 'job');
    const result = await queries.execute(new GetJobResultQuery(jobRequestTenant(config.tenancy, request), jobId));
    const body = result.open();
    body.once('close', () => void result.release());
    return reply
      .status(200)
      .headers({
        'content-type': 'application/json',
        'content-length': String(result.plaintextBytes),
        'content-disposition': `attachment; filename="${result.jobId}.json"`,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      })
      .send(body);
  };

  app.getHttpAdapter().getInstance().get('/v1/fetcher/:id/result', (request: JobResultRequest, reply: FastifyReply) => {
    for (const name of CORS_HEADERS) reply.removeHeader(name);
    if (loopbackOnly && !isLoopbackHost(hostnameOf(request.headers.host))) return reply.callNotFound();
    const allowed = authorizer.check(request.headers, RESULT_REQUIREMENT);
    if (allowed === true) return send(request, reply);
    return allowed.then(
      () => send(request, reply),
      (error: unknown) => {
        if (error instanceof PluginAuthRejection) return sendRejection(reply, error);
        throw error;
      },
    );
  });
}

/** The host name of a Host header, without the port; IPv6 literals without their brackets. */
function hostnameOf(host: string | undefined): string {
  if (!host) return '';
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  const colon = host.indexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

const errorBody = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } });

/** The route's OpenAPI description (documented whether or not this Manager serves it). */
export const JOB_RESULT_PATH_ITEM: OpenAPIObject['paths'][string] = {
  get: {
    operationId: 'getJobResult',
    summary: "Download a completed job's decrypted result, after its AES-GCM tag and HMAC are checked (only with RESULT_DOWNLOAD_ENABLED=true)",
    description:
      'Off by default: without RESULT_DOWNLOAD_ENABLED=true the path is an unknown route (404). With plugin-auth, the caller needs resource `fetcher-result`, action `get`. No CORS: only same-origin pages may read it from a browser.',
    tags: ['jobs'],
    security: [{ bearer: [] }],
    parameters: [{ name: 'id', required: true, in: 'path', schema: { type: 'string', format: 'uuid' } }],
    responses: {
      '200': {
        description: 'The decrypted JSON document, exactly the bytes the HMAC covers (as an attachment named `<jobId>.json`)',
        content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } },
      },
      '400': errorBody('Not a UUID (FET-0404)'),
      '401': { description: 'Missing or unreadable token (plain text), when authorization is on' },
      '403': { description: 'Not authorized for resource `fetcher-result` (plain text), when authorization is on' },
      '404': errorBody('No such job (FET-1001), or its stored result no longer exists (FET-1025); the route itself answers 404 when it is off'),
      '409': errorBody('The job is pending, processing, failed or canceled: it has no result (FET-1024)'),
      '500': errorBody('The stored result failed its integrity check and was not sent (FET-1026), or another internal error'),
      '503': errorBody('The result storage could not be read (FET-0003)'),
    },
  },
};
