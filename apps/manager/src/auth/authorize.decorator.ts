import { applyDecorators, SetMetadata, UseFilters, UseGuards } from '@nestjs/common';
import { PluginAuthGuard } from './plugin-auth.guard';
import { AUTHORIZE_METADATA, type AuthorizeRequirement } from './plugin-auth.options';
import { PluginAuthRejectionFilter } from './plugin-auth.rejection';

/**
 * Marks a business route as protected: the caller needs permission for `action` on `resource`
 * (application `fetcher`). Routes without it stay public.
 */
export function Authorize(resource: string, action: string): MethodDecorator & ClassDecorator {
  const requirement: AuthorizeRequirement = { resource, action };
  return applyDecorators(SetMetadata(AUTHORIZE_METADATA, requirement), UseGuards(PluginAuthGuard), UseFilters(PluginAuthRejectionFilter));
}
