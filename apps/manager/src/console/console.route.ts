import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ManagerConfig } from '../config/manager.config';
import { CONSOLE_SECURITY_HEADERS, contentTypeOf, IMMUTABLE_CACHE, NO_CACHE } from './console-headers';

/**
 * The console's build output when CONSOLE_DIR is not set: apps/console/dist, beside this app in the
 * repository and in the image (this file is apps/manager/{src,dist}/console/console.route).
 */
export const DEFAULT_CONSOLE_DIR = join(__dirname, '..', '..', '..', 'console', 'dist');

/** Only the flat, hashed names Vite writes into assets/: no path separators, no dot segments. */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,200}$/;

const NOT_BUILT = 'The console is not built. Run `npm run build` (or `npm start`, which builds it), or set CONSOLE_DIR to its dist folder.\n';

/**
 * What the page adapts to, served as /console/settings.json: `resultDownload` is whether this Manager
 * serves GET /v1/fetcher/{id}/result (RESULT_DOWNLOAD_ENABLED). Public like the page: it tells only
 * which routes exist, which the route's own 404 tells anyone anyway.
 */
export interface ConsoleFeatures {
  readonly resultDownload: boolean;
}

/**
 * Serves the operator console under /console: the page at /console/ and its hashed files at
 * /console/assets/*. Plain Fastify routes like the job status route, outside the API: the files are
 * public (the page asks for a token when the API wants one), so no authorization applies here.
 * Hashed files are read once and kept (their content never changes under a name); index.html is read
 * on each request, so a rebuild is picked up without a restart.
 */
export function registerConsoleRoutes(fastify: FastifyInstance, settings: ManagerConfig['console'], features: ConsoleFeatures = { resultDownload: false }): void {
  if (!settings.enabled) return;
  const dir = settings.dir ?? DEFAULT_CONSOLE_DIR;
  const cache = new Map<string, Buffer>();
  const read = async (relative: string, keep: boolean): Promise<Buffer | undefined> => {
    const known = cache.get(relative);
    if (known) return known;
    try {
      const bytes = await readFile(join(dir, relative));
      if (keep) cache.set(relative, bytes);
      return bytes;
    } catch {
      return undefined;
    }
  };
  const send = (reply: FastifyReply, status: number, type: string, cacheControl: string, body: Buffer | string) =>
    reply.status(status).headers({ ...CONSOLE_SECURITY_HEADERS, 'content-type': type, 'cache-control': cacheControl }).send(body);

  const page = async (_request: unknown, reply: FastifyReply) => {
    const html = await read('index.html', false);
    return html ? send(reply, 200, 'text/html; charset=utf-8', NO_CACHE, html) : send(reply, 404, 'text/plain; charset=utf-8', NO_CACHE, NOT_BUILT);
  };
  fastify.get('/console', (_request, reply) => reply.redirect('/console/', 301));
  fastify.get('/console/', page);
  const featuresBody = JSON.stringify(features);
  fastify.get('/console/settings.json', (_request, reply: FastifyReply) => send(reply, 200, 'application/json; charset=utf-8', NO_CACHE, featuresBody));
  fastify.get('/console/index.html', page);
  fastify.get('/console/assets/:name', async (request, reply: FastifyReply) => {
    const { name } = request.params as { name: string };
    const type = contentTypeOf(name);
    const bytes = ASSET_NAME.test(name) && type ? await read(join('assets', name), true) : undefined;
    if (!bytes || !type) return send(reply, 404, 'text/plain; charset=utf-8', NO_CACHE, 'Not found\n');
    return send(reply, 200, type, IMMUTABLE_CACHE, bytes);
  });
}
