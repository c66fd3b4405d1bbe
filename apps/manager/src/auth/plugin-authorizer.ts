import { Inject, Injectable } from '@nestjs/common';
import { type AuthorizeRequirement, PLUGIN_AUTH_OPTIONS, type PluginAuthOptions, pluginAuthActive } from './plugin-auth.options';
import { PluginAuthRejection } from './plugin-auth.rejection';
import { bearerToken, subjectFromToken } from './subject';

/** How long the authorization service may take before the request fails with 500. */
export const AUTHORIZE_TIMEOUT_MS = 30_000;

/** Request headers as both Nest's guard and a plain Fastify route see them. */
export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * Asks the authorization service (`POST {address}/v1/authorize`) whether the caller may perform an
 * action on a resource, and throws a `PluginAuthRejection` when not. One instance per app, injected
 * into `PluginAuthGuard` (the Nest routes) and the job-result route, which Fastify serves directly.
 */
@Injectable()
export class PluginAuthorizer {
  constructor(@Inject(PLUGIN_AUTH_OPTIONS) private readonly options: PluginAuthOptions) {}

  /** Synchronous when authorization is off: this runs on every protected call. */
  check(headers: RequestHeaders, requirement: AuthorizeRequirement): true | Promise<true> {
    if (!pluginAuthActive(this.options)) return true;
    return this.ask(headers, requirement, this.options.address);
  }

  get active(): boolean {
    return pluginAuthActive(this.options);
  }

  private async ask(headers: RequestHeaders, requirement: AuthorizeRequirement, address: string): Promise<true> {
    const raw = headers.authorization;
    const header = Array.isArray(raw) ? raw[0] : raw;
    const bearer = bearerToken(header);
    if (bearer.kind === 'missing') throw PluginAuthRejection.plain(401, 'Missing Token');
    if (bearer.kind === 'other-scheme') throw PluginAuthRejection.plain(401, 'Unauthorized');
    const subject = subjectFromToken(bearer.token);
    if (!subject.ok) throw PluginAuthRejection.plain(401, 'Unauthorized');

    let response: Response;
    let text: string;
    try {
      response = await fetch(`${address.replace(/\/+$/, '')}/v1/authorize`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: header ?? '' },
        body: JSON.stringify({ sub: subject.subject, resource: requirement.resource, action: requirement.action }),
        signal: AbortSignal.timeout(AUTHORIZE_TIMEOUT_MS),
      });
      text = await response.text();
    } catch {
      throw PluginAuthRejection.plain(500, 'Internal Server Error');
    }
    return decide(response, text);
  }
}

function decide(response: Response, text: string): true {
  const body = parseObject(text);
  if (response.ok && typeof body?.authorized === 'boolean') {
    if (body.authorized) return true;
    throw PluginAuthRejection.plain(403, 'Forbidden');
  }
  // The service's own error body names its status in `code` (a number or a numeric string). Anything
  // but a 500 goes back to the caller unchanged; a 500 or an unreadable answer is our 500.
  const code = Number(body?.code);
  if (body && Number.isInteger(code) && code >= 400 && code <= 599 && code !== 500) {
    throw new PluginAuthRejection(code, response.headers.get('content-type') ?? 'application/json', text);
  }
  throw PluginAuthRejection.plain(500, 'Internal Server Error');
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
