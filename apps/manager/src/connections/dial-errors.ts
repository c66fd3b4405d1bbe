import { HostNotAllowedError, SslModeNotAllowedError } from '@fetcher/connectors';
import { connectReasonOf, EngineError, type ConnectionDescriptor } from '@fetcher/engine';
import { redactSecrets } from '@fetcher/platform';
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

/** The connect-failure answer, with the class of failure when the connector could tell it. */
export function connectFailure(error: unknown): AppError {
  return Errors.databaseConnectionError(connectReasonOf(error));
}

/**
 * What a debug line may say about a failed dial: the reason and, for each error in the chain, its
 * type, its driver code and its message with `secrets` (the decrypted password) and every DSN,
 * password assignment or PEM block masked. The log formatter redacts again on the way out.
 */
export function dialFailureLog(error: unknown, secrets: readonly string[]): Record<string, unknown> {
  const chain = causes(error).map((c) => {
    if (!(c instanceof Error)) return { type: typeof c };
    const code = (c as { code?: unknown }).code;
    return {
      type: c.name,
      ...(c instanceof EngineError ? { category: c.category } : {}),
      ...(typeof code === 'string' || typeof code === 'number' ? { code: redactSecrets(String(code), secrets) } : {}),
      message: redactSecrets(c.message, secrets),
    };
  });
  const reason = connectReasonOf(error);
  return { ...(reason ? { reason } : {}), causes: chain };
}

/** The literal secrets of a descriptor (password, TLS key material), for masking in log text. */
export function secretTexts(descriptor: () => ConnectionDescriptor): string[] {
  try {
    const secrets = descriptor().secrets;
    return [secrets?.password, secrets?.ssl?.key, secrets?.ssl?.cert].filter((s): s is string => typeof s === 'string' && s !== '');
  } catch {
    return []; // unreadable credentials: nothing decrypted, nothing to mask
  }
}
