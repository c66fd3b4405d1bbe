export interface AmqpUrlParts {
  /** `amqp` (default) or `amqps`. */
  readonly scheme?: string;
  readonly host: string;
  readonly port?: number | string;
  readonly user?: string;
  readonly password?: string;
  /** Leave out for the default vhost `/`. */
  readonly vhost?: string;
}

/**
 * The broker URL from its parts. Credentials and vhost are percent-encoded, so a password holding
 * `@`, `:` or `/` cannot change which host is dialled. The result holds the password: never log it.
 */
export function amqpUrl(parts: AmqpUrlParts): string {
  const scheme = (parts.scheme ?? '').trim() === '' ? 'amqp' : parts.scheme!.trim().replace(/:\/*$/, '');
  const user = parts.user ?? '';
  const auth = user === '' && (parts.password ?? '') === '' ? '' : `${encodeURIComponent(user)}:${encodeURIComponent(parts.password ?? '')}@`;
  const host = parts.host.includes(':') && !parts.host.startsWith('[') ? `[${parts.host}]` : parts.host;
  const port = parts.port === undefined || String(parts.port).trim() === '' ? '' : `:${String(parts.port).trim()}`;
  const vhost = parts.vhost === undefined || parts.vhost === '' || parts.vhost === '/' ? '' : `/${encodeURIComponent(parts.vhost)}`;
  return `${scheme}://${auth}${host}${port}${vhost}`;
}
