/**
 * Why a tenant's own resource could not be built from its config. Callers branch on `reason`:
 * - `mongodb_not_configured`: no `databases.<module>.mongodb`, or it names no database (there is
 *   never a fallback to a shared database).
 * - `rabbitmq_not_configured`: no `messaging.rabbitmq`, or it lacks host, port, vhost or credentials.
 * - `invalid_config`: the section is there but unusable (a `uri` with another scheme).
 * - `unreachable`: the config is usable but the tenant's database or vhost did not accept a
 *   connection (down, refused credentials, unknown vhost); the next use tries again.
 */
export type TenantResourceErrorReason = 'mongodb_not_configured' | 'rabbitmq_not_configured' | 'invalid_config' | 'unreachable';

const MESSAGE: Readonly<Record<TenantResourceErrorReason, string>> = {
  mongodb_not_configured: 'the tenant has no MongoDB database configured for this service',
  rabbitmq_not_configured: 'the tenant has no RabbitMQ vhost configured',
  invalid_config: 'the tenant configuration cannot be used',
  unreachable: 'the tenant resource could not be reached',
};

/**
 * The tenant is known to the tenant-manager but its config does not give this service what it needs.
 * Category `unavailable` (the Manager answers 503): nothing the caller sent is wrong, and it is not
 * fixed by retrying the same message either, so the Worker drops such a delivery. The message is a
 * constant per reason plus the field at fault: never a URI, a host or a credential.
 */
export class TenantResourceError extends Error {
  readonly category = 'unavailable' as const;

  readonly #cause: unknown;

  /** `field` names what is missing or which resource failed (`messaging.rabbitmq.vhost`, `mongodb`). */
  constructor(readonly reason: TenantResourceErrorReason, readonly tenantId: string, readonly field?: string, cause?: unknown) {
    super(field ? `${MESSAGE[reason]} (${field})` : MESSAGE[reason]);
    this.name = 'TenantResourceError';
    this.#cause = cause;
  }

  /** A driver error can quote a URI with its password: kept out of logs and JSON. */
  override get cause(): unknown {
    return this.#cause;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `${this.name} [${this.reason}]: ${this.message}`;
  }

  toJSON(): { name: string; reason: TenantResourceErrorReason; category: 'unavailable'; message: string } {
    return { name: this.name, reason: this.reason, category: this.category, message: this.message };
  }
}
