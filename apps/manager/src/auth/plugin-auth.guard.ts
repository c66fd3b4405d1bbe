import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AUTHORIZE_METADATA, type AuthorizeRequirement } from './plugin-auth.options';
import { PluginAuthorizer, type RequestHeaders } from './plugin-authorizer';

/**
 * Checks the `@Authorize` requirement of a Nest route with the authorization service. Routes without
 * `@Authorize` (health, readiness, metrics, version) are never checked.
 */
@Injectable()
export class PluginAuthGuard implements CanActivate {
  constructor(
    private readonly authorizer: PluginAuthorizer,
    private readonly reflector: Reflector,
  ) {}

  /** Synchronous when there is nothing to ask: Nest awaits only a promise. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (!this.authorizer.active) return true;
    const requirement = this.reflector.getAllAndOverride<AuthorizeRequirement | undefined>(AUTHORIZE_METADATA, [context.getHandler(), context.getClass()]);
    if (!requirement) return true;
    return this.authorizer.check(context.switchToHttp().getRequest<{ headers: RequestHeaders }>().headers, requirement);
  }
}
