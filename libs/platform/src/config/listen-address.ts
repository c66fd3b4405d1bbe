/** `[host]:port` as the original's SERVER_ADDRESS (`:4006`); undefined when malformed or out of range. */
export function parseListenAddress(text: string): { host?: string; port: number } | undefined {
  const match = /^(.*):(\d{1,5})$/.exec(text);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65_535) return undefined;
  const host = match[1]?.replace(/^\[(.*)\]$/, '$1');
  return host ? { host, port } : { port };
}
