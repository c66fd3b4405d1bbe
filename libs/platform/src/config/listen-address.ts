/**
 * `[host]:port` as the original's SERVER_ADDRESS (`:4006`), or a bare port (`4006`, the same as
 * `:4006`); undefined when malformed or out of range.
 */
export function parseListenAddress(text: string): { host?: string; port: number } | undefined {
  const match = /^(?:(.*):)?(\d{1,5})$/.exec(text);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65_535) return undefined;
  const host = match[1]?.replace(/^\[(.*)\]$/, '$1');
  return host ? { host, port } : { port };
}

/** Listen failures a user can fix, by the socket error's code. */
const LISTEN_PROBLEMS: Readonly<Record<string, string>> = Object.freeze({
  EADDRINUSE: 'is already in use by another process: stop it or choose another port',
  EADDRNOTAVAIL: 'is not an address of this machine',
  EACCES: 'may not be bound by this user (a port below 1024 needs privileges)',
});

/**
 * Runs `listen` and turns a port in use (and the like) into a startup message that names the
 * variable to change: "SERVER_ADDRESS: 0.0.0.0:4006 is already in use by another process: ...".
 * Any other failure passes unchanged.
 */
export async function listenNamingVariable<T>(variable: string, address: { host?: string; port: number }, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code !== 'string' || !Object.hasOwn(LISTEN_PROBLEMS, code)) throw error;
    const host = address.host ?? '0.0.0.0';
    const shown = host.includes(':') ? `[${host}]:${address.port}` : `${host}:${address.port}`;
    throw new Error(`${variable}: ${shown} ${LISTEN_PROBLEMS[code]} (${code})`, { cause: error });
  }
}
