import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { frameworkError, sendRendered } from './error.filter';

/** The fixed message of each routing failure Fastify hands over; none quotes the URL. */
const MESSAGES: Readonly<Record<string, string>> = {
  FST_ERR_BAD_URL: 'the request path is not valid percent-encoded UTF-8',
  FST_ERR_MAX_PARAM_LENGTH: 'a path parameter is too long',
};

/**
 * Fastify's `frameworkErrors`: URLs the router cannot take (bad percent-encoding, a path parameter
 * over its length limit). Left to Fastify, they are answered in its own shape, quoting the whole
 * URL, query string included (where tokens and keys travel); here they are E4 with a fixed message.
 */
export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
  sendRendered(reply, frameworkError(status, MESSAGES[error.code] ?? 'the request URL is not valid'));
}
