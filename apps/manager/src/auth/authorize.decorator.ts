import { applyDecorators, SetMetadata, UseFilters, UseGuards } from '@nestjs/common';
import { PluginAuthGuard } from './plugin-auth.guard';
import { AUTHORIZE_METADATA, type AuthorizeRequirement } from './plugin-auth.options';
import { PluginAuthRejectionFilter } from './plugin-auth.rejection';
import { TenantGuard } from './tenant.guard';

/**
 * Marks a business route as protected: the caller needs permission for `action` on `resource`
 * (application `fetcher`), and in multi-tenant mode a verified tenant token (TenantGuard, after
 * plugin-auth). Routes without it stay public.
 */
export function Authorize(resource: string, action: string): MethodDecorator & ClassDecorator {
  const requirement: AuthorizeRequirement = { resource, action };
  return applyDecorators(SetMetadata(AUTHORIZE_METADATA, requirement), UseGuards(PluginAuthGuard, TenantGuard), UseFilters(PluginAuthRejectionFilter));
}
