import { EngineError, ErrorText, type ConnectReason } from '@fetcher/engine';

/**
 * Typed causes that hosts recognise with `instanceof` (the Manager maps them to FET-0414 / FET-0413).
 * Their messages are fixed: they never echo the host, the matching range or the requested mode.
 */
export class HostNotAllowedError extends Error {
  constructor() {
    super('datasource host is not allowed');
    this.name = 'HostNotAllowedError';
  }
}

export class SslModeNotAllowedError extends Error {
  /** The datasource type the mode was refused for; kept for hosts, never rendered. */
  readonly datasourceType: string;
  constructor(datasourceType = '') {
    super('ssl mode is not supported for this datasource type');
    this.name = 'SslModeNotAllowedError';
    this.datasourceType = datasourceType;
  }
}

/**
 * A connect-stage failure. The cause (which may quote a DSN or a driver message) stays hidden in the
 * EngineError; `reason`, when the driver's codes told the class of failure, is shown to hosts.
 */
export function connectError(cause?: unknown, reason?: ConnectReason): EngineError {
  return new EngineError('connect', ErrorText.connectFailed, cause, reason ? { reason } : {});
}

export function hostNotAllowed(): EngineError {
  return new EngineError('validation', 'datasource host is not allowed', new HostNotAllowedError());
}

/** The message is the same for every type; the type rides on the typed cause only. */
export function sslModeNotAllowed(type: string): EngineError {
  return new EngineError('validation', 'ssl mode is not supported for this datasource type', new SslModeNotAllowedError(type));
}
