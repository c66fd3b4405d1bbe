import { HostNotAllowedError, SslModeNotAllowedError } from '@fetcher/connectors';
import { EngineError } from '@fetcher/engine';
import { AppError } from '../errors/app-error';
import { Errors } from '../errors/catalogue';
import { CredentialsUnreadableError } from './connection-credentials';

/** The chain of causes, outermost first (bounded: causes can be cyclic by mistake). */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && chain.length < 10 && !chain.includes(current)) {
    chain.push(current);
    current = current instanceof Error ? current.cause : undefined;
  }
  return chain;
}

/**
 * A dial-time failure (test, schema, validate-schema) as an answer, by type and category only:
 * a denied host is 400/FET-0414, an SSL mode the type does not allow 400/FET-0413, a storage
 * failure keeps its own AppError, and the rest is decided by `otherwise`.
 */
export function dialFailure(error: unknown, sslMode: string, otherwise: (error: unknown) => AppError): AppError {
  const chain = causes(error);
  if (chain.some((c) => c instanceof HostNotAllowedError)) return Errors.forbiddenHost();
  if (chain.some((c) => c instanceof SslModeNotAllowedError)) return Errors.invalidSslMode(sslMode);
  const stored = chain.find((c): c is AppError => c instanceof AppError);
  if (stored) return stored;
  return otherwise(error);
}

/** Connect-stage failures (including undecryptable credentials and deadlines) versus the rest. */
export function isConnectFailure(error: unknown): boolean {
  return causes(error).some(
    (c) => c instanceof CredentialsUnreadableError || (c instanceof EngineError && (c.category === 'connect' || c.category === 'timeout')),
  );
}

export function isHostNotAllowed(error: unknown): boolean {
  return causes(error).some((c) => c instanceof HostNotAllowedError);
}
