import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AUTHORIZE_METADATA, type AuthorizeRequirement, PLUGIN_AUTH_OPTIONS, type PluginAuthOptions, pluginAuthActive } from './plugin-auth.options';
import { PluginAuthRejection } from './plugin-auth.rejection';
import { bearerToken, subjectFromToken } from './subject';

/** How long the authorization service may take before the request fails with 500. */
export const AUTHORIZE_TIMEOUT_MS = 30_000;

/**
 * Asks the authorization service (`POST {address}/v1/authorize`) whether the caller may perform the
 * route's action on its resource. Routes without `@Authorize` (health, readiness, metrics, version)
 * are never checked.
 */
@Injectable()
export class PluginAuthGuard implements CanActivate {
  constructor(
    @Inject(PLUGIN_AUTH_OPTIONS) private readonly options: PluginAuthOptions,
    private readonly reflector: Reflector,
  ) {}

  /** Synchronous when there is nothing to ask: Nest awaits only a promise, and this runs on every protected call. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (!pluginAuthActive(this.options)) return true;
    const requirement = this.reflector.getAllAndOverride<AuthorizeRequirement | undefined>(AUTHORIZE_METADATA, [context.getHandler(), context.getClass()]);
    return requirement ? this.authorize(context, requirement, this.options.address) : true;
  }

  private async authorize(context: ExecutionContext, requirement: AuthorizeRequirement, address: string): Promise<boolean> {
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined> }>();
    const raw = req.headers.authorization;
    const header = Array.isArray(raw) ? raw[0] : raw;
    const token = bearerToken(header);
    if (!token) throw PluginAuthRejection.plain(401, 'Missing Token');
    const subject = subjectFromToken(token);
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
