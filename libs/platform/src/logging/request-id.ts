import { Injectable, type NestMiddleware } from '@nestjs/common';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { v7 as uuidv7 } from 'uuid';

export const REQUEST_ID_HEADER = 'X-Request-Id';

// An incoming id is trusted only if it is short and plain: it ends up in every log line and message.
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:/+=-]{1,128}$/;

/** The request id to use: the caller's `X-Request-Id` when acceptable, else a fresh UUIDv7. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && ACCEPTABLE_REQUEST_ID.test(value) ? value : uuidv7();
}

/**
 * Options for `new FastifyAdapter(...)`: Fastify assigns its own request ids (`req-1`, ...) before
 * any middleware runs, and the logger reuses them, so on Fastify the id must be chosen here.
 */
export const fastifyRequestIdOptions: { requestIdHeader: false; genReqId: (req: { headers: IncomingMessage['headers'] }) => string } = {
  requestIdHeader: false,
  genReqId: (req) => requestIdFrom(req.headers['x-request-id']),
};

/**
 * Gives every request an id (the one already assigned, else the caller's, else a UUIDv7), stores it
 * as `req.id` where the logger and handlers find it, and echoes it in the response header.
 */
@Injectable()
export class RequestIdMiddleware implements NestMiddleware {
  use(req: IncomingMessage & { id?: unknown }, res: ServerResponse, next: () => void): void {
    const echoed = res.getHeader(REQUEST_ID_HEADER);
    const id = typeof echoed === 'string' ? echoed : typeof req.id === 'string' ? req.id : requestIdFrom(req.headers['x-request-id']);
    req.id = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    next();
  }
}
