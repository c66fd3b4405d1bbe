import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { ManagerConfig } from '../config/manager.config';
import { JobResponse } from '../jobs/dto/job.response';
import { JOB_RESULT_PATH_ITEM } from '../jobs/job-result.route';
import { ManagerModule } from '../manager.module';

/** The OpenAPI 3 document of the routes: the controllers' and DTOs' decorators, and the job-result route's own description. */
export function buildOpenApiDocument(app: INestApplication, config: ManagerConfig): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle(config.swagger.title)
    .setDescription(config.swagger.description)
    .setVersion(config.swagger.version)
    .setLicense('UNLICENSED', 'https://example.invalid/license')
    .addServer('/')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'bearer');
  // The business routes only: the system routes (/health, /readyz, ...) belong to the platform.
  const document = SwaggerModule.createDocument(app, builder.build(), { include: [ManagerModule], extraModels: [JobResponse], operationIdFactory: (_controller, method) => method });
  document.paths['/v1/fetcher/{id}/result'] = JOB_RESULT_PATH_ITEM;
  return document;
}

const UI_ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
};

const INDEX_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Fetcher Manager API</title>
<link rel="stylesheet" href="./swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="./swagger-ui-bundle.js"></script><script src="./swagger-ui-standalone-preset.js"></script>
<script>window.ui = SwaggerUIBundle({ url: './doc.json', dom_id: '#swagger-ui', presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });</script>
</body></html>
`;

/**
 * The document at /swagger/doc.json and Swagger UI at /swagger/index.html. The UI's three files are
 * served from swagger-ui-dist directly (a fixed list, read once), so no static-file plugin is needed.
 */
export function mountSwagger(app: NestFastifyApplication, document: OpenAPIObject): void {
  const fastify = app.getHttpAdapter().getInstance();
  const body = JSON.stringify(document);
  const dist = join(require.resolve('swagger-ui-dist/package.json'), '..');
  const assets = new Map(Object.entries(UI_ASSETS).map(([name, type]) => [name, { type, content: readFileSync(join(dist, name)) }]));
  fastify.get('/swagger/doc.json', (_request, reply) => reply.type('application/json; charset=utf-8').send(body));
  fastify.get('/swagger/index.html', (_request, reply) => reply.type('text/html; charset=utf-8').send(INDEX_HTML));
  // Both spellings a user types lead to the UI; `/swagger/` would otherwise match `:asset` and 404.
  fastify.get('/swagger', (_request, reply) => reply.redirect('/swagger/index.html'));
  fastify.get('/swagger/', (_request, reply) => reply.redirect('/swagger/index.html'));
  fastify.get<{ Params: { asset: string } }>('/swagger/:asset', (request, reply) => {
    const asset = assets.get(request.params.asset);
    if (!asset) return reply.callNotFound();
    return reply.type(asset.type).send(asset.content);
  });
}
