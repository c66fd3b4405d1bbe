import { type OnApplicationShutdown } from '@nestjs/common';
import { startTelemetry, type Telemetry, type TelemetryOptions, withSpan } from './telemetry';
import { withinBound } from '../lifecycle/lifecycle';

/** The process's tracing handle: a `Telemetry` when `ENABLE_TELEMETRY=true`, `null` otherwise. */
export const TELEMETRY = Symbol('Telemetry');

export interface TelemetrySettings {
  readonly enabled: boolean;
  readonly serviceName: string;
  readonly serviceVersion?: string;
  readonly environment?: string;
  readonly endpoint?: string;
}

/**
 * Starts tracing when the configuration asks for it. Off, nothing is started: no SDK, no exporter,
 * and callers skip span creation entirely because they get `null`.
 */
export function bootTelemetry(settings: TelemetrySettings, start: (options: TelemetryOptions) => Telemetry = startTelemetry): Telemetry | null {
  return settings.enabled ? start({ ...settings, enabled: true }) : null;
}

/** Kind, parent context (a consumed message's) and attributes of a span. */
export type SpanOptions = Parameters<typeof withSpan>[2];

/** Runs `work` in a span when tracing is on, and as a plain call when it is off. */
export function traced<T>(
  telemetry: Telemetry | null | undefined,
  name: string,
  options: SpanOptions,
  work: () => Promise<T>,
): Promise<T> {
  return telemetry ? withSpan(telemetry.tracer, name, options, () => work()) : work();
}

/** Bound on the last export, well inside the drain's bound on closing the app. */
const FLUSH_BOUND_MS = 3_000;

/**
 * Exports the last batched spans when the app closes (the end of a drain). An unreachable collector
 * costs at most FLUSH_BOUND_MS and never fails the shutdown: traces are best effort.
 */
export class TelemetryShutdown implements OnApplicationShutdown {
  constructor(private readonly telemetry: Telemetry | null) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.telemetry) await withinBound(this.telemetry.shutdown(), FLUSH_BOUND_MS);
  }
}
