import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { TenantGate } from './tenant-gate';

/**
 * Multi-tenant mode's tenant check on every `@Authorize` route. `@Authorize` lists it after
 * PluginAuthGuard, and Nest runs a route's guards in order, so plugin-auth answers first.
 */
@Injectable()
export class TenantGuard implements CanActivate {
  constructor(private readonly gate: TenantGate) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    return this.gate.admit(context.switchToHttp().getRequest<FastifyRequest>());
  }
}
