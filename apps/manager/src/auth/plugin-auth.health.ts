import { type PluginAuthOptions, pluginAuthActive } from './plugin-auth.options';

/**
 * At startup, asks `GET {address}/health` (answer `healthy`) once, only to log whether the
 * authorization service is reachable; the result never blocks startup.
 */
export async function logPluginAuthConnectivity(options: PluginAuthOptions, log: { log(message: string): void; warn(message: string): void }, timeoutMs = 5_000): Promise<void> {
  if (!pluginAuthActive(options)) {
    log.log('plugin-auth disabled: business routes are open');
    return;
  }
  try {
    const res = await fetch(`${options.address.replace(/\/+$/, '')}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    const text = (await res.text()).trim();
    if (res.ok && text.replace(/"/g, '') === 'healthy') log.log('plugin-auth reachable');
    else log.warn(`plugin-auth health answered ${res.status}`);
  } catch {
    log.warn('plugin-auth unreachable at startup; authorized routes will answer 500 until it is');
  }
}
