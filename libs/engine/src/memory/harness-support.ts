/** Small helpers shared by the in-memory ports. */
import type { TenantContext } from '../models';

/** A collision-free map key for (tenant, name): JSON quoting keeps separators inside names harmless. */
export function tenantKey(tenant: TenantContext, name: string): string {
  return JSON.stringify([tenant.tenantId, name]);
}

/** A failure knob: an error to throw, or `true` for the port's documented default error. */
export type Knob = Error | boolean | undefined;

export function throwKnob(knob: Knob, fallback: () => Error): void {
  if (knob === undefined || knob === false) return;
  throw knob === true ? fallback() : knob;
}

/**
 * Runs `work` and hands back its outcome as a promise: a port method must reject, never throw
 * synchronously, even when its work is synchronous.
 */
export function attempt<T>(work: () => T): Promise<T> {
  return new Promise<T>((resolve) => resolve(work()));
}

/** The signal's reason as an Error (AbortSignal reasons are DOMExceptions unless a caller chose otherwise). */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('operation aborted');
}
