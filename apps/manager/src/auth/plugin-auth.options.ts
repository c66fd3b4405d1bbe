/** Provided by the composition root from `PLUGIN_AUTH_ENABLED` and `PLUGIN_AUTH_ADDRESS`. */
export interface PluginAuthOptions {
  readonly enabled: boolean;
  readonly address?: string;
}
export const PLUGIN_AUTH_OPTIONS = Symbol('PluginAuthOptions');

/** Route metadata set by `@Authorize`. */
export const AUTHORIZE_METADATA = 'fetcher:authorize';

/** What a route needs: the pair the authorization service decides on. */
export interface AuthorizeRequirement {
  readonly resource: string;
  readonly action: string;
}

/** Authorization is on only when it is enabled and has somewhere to ask; otherwise routes are open. */
export function pluginAuthActive(options: PluginAuthOptions): options is PluginAuthOptions & { address: string } {
  return options.enabled && (options.address ?? '').trim() !== '';
}
