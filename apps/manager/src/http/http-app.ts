import { fastifyCors } from '@fastify/cors';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type Telemetry } from '@fetcher/platform';
import { Logger } from 'nestjs-pino';
import { registerConsoleRoutes } from '../console/console.route';
import type { ManagerConfig } from '../config/manager.config';
import { registerJobResultRoute } from '../jobs/job-result.route';
import { type ManagerInfrastructure, ManagerModule } from '../manager.module';
import { answerFrameworkError } from './framework-errors';
import { RawBody } from './json-body';
import { buildOpenApiDocument, mountSwagger } from './openapi';

/** What a browser may call cross-origin: every method the API has. */
const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** 4 MiB: the contract's body limit (larger bodies get 413). */
export const BODY_LIMIT_BYTES = 4 * 1024 * 1024;

export interface ManagerAppOptions {
  /** Nest's own logger; tests pass `false`. */
  readonly logger?: false;
  /** Tests give each Manager their own Redis key space (or share one on purpose). */
  readonly redisKeyPrefix?: string;
  /** Adapters in place of the production ones (the standalone service); see ManagerModule. */
  readonly infrastructure?: ManagerInfrastructure;
  /** Tracing started by main.ts (null or absent: off). */
  readonly telemetry?: Telemetry | null;
  /** Where log lines go instead of stdout (tests read them). */
  readonly logDestination?: NodeJS.WritableStream;
}

/** Signals are main.ts's business (runGracefully drains first); tests close the app themselves. */

/**
 * Builds the Manager on Fastify, initialised but not listening (tests inject; main.ts listens).
 * Body parsing is ours: every body arrives as raw bytes and each route runs the parse stage, so a
 * missing or wrong content type is the contract's 400/FET-0001 and not Fastify's 415.
 */
export async function createManagerApp(config: ManagerConfig, options: ManagerAppOptions = {}): Promise<NestFastifyApplication> {
  // No Nest middleware anywhere (request id, logging, metrics and spans are Fastify hooks), so no
  // @fastify/middie: its hook would run on every request for nothing.
  const adapter = new FastifyAdapter({ bodyLimit: BODY_LIMIT_BYTES, skipMiddie: true, frameworkErrors: answerFrameworkError });
  const app = await NestFactory.create<NestFastifyApplication>(ManagerModule.forRoot(config, {
      ...(options.redisKeyPrefix === undefined ? {} : { redisKeyPrefix: options.redisKeyPrefix }),
      ...(options.infrastructure === undefined ? {} : { infrastructure: options.infrastructure }),
      ...(options.telemetry ? { telemetry: options.telemetry } : {}),
      ...(options.logDestination ? { logDestination: options.logDestination } : {}),
    }), adapter, {
    bodyParser: false,
    abortOnError: false,
    bufferLogs: options.logger !== false,
    ...(options.logger === false ? { logger: false } : {}),
  });
  if (options.logger !== false) app.useLogger(app.get(Logger));
  const fastify = app.getHttpAdapter().getInstance();
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES }, (request, body, done) => {
    const type = request.headers['content-type'];
    done(null, new RawBody(typeof type === 'string' ? type : undefined, body as Buffer));
  });
  // Any origin, as @fastify/cors's own hook: Nest's enableCors() wraps it to also copy the headers
  // onto the raw response for Nest middleware, which this app does not use. Its default methods
  // (GET, HEAD, POST) would fail a browser's preflight for PATCH and DELETE.
  await app.register(fastifyCors, { origin: true, methods: CORS_METHODS });
  registerJobResultRoute(app);
  registerConsoleRoutes(fastify, config.console, { resultDownload: config.resultDownload.enabled });
  mountSwagger(app, buildOpenApiDocument(app, config));
  await app.init();
  return app;
}
