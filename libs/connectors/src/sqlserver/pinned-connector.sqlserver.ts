/**
 * The socket factory tedious dials through (its `options.connector`). Every TCP connection goes to
 * an address the host guard checked: the configured host's pinned address, or, when the server
 * answers the login with a routing reply ("connect to that host instead", as Azure SQL gateways
 * do), the routed host after it passed the same guard. Without this hook tedious would resolve and
 * dial the routed host itself and send it the login packet, password included.
 */
import { connect, type Socket } from 'node:net';
import type { DialTarget } from '../common/host-safety';

/** What tedious hands a connector: the host and port it wants (the routed ones after a routing reply). */
export interface TediousConnectOptions {
  readonly host: string;
  readonly port: number;
  readonly localAddress?: string;
}

/** Checks a host the way every dial is checked (resolveDialTarget with the connector's policy). */
export type GuardHost = (host: string) => Promise<DialTarget>;

export type TediousConnector = (options: TediousConnectOptions, lookup: unknown, signal?: AbortSignal) => Promise<Socket>;

/**
 * `target` is the checked address of the configured host (tedious asks for it by that address,
 * since the pool's `server` is the address); any other host goes through `guard` first. A denied
 * host rejects before any socket is opened.
 */
export function pinnedTediousConnector(target: DialTarget, guard: GuardHost, dial: typeof connect = connect): TediousConnector {
  return async (options, _lookup, signal) => {
    signal?.throwIfAborted();
    const checked = options.host === target.address ? target : await guard(options.host);
    signal?.throwIfAborted();
    return openSocket(dial, checked, options.port, signal);
  };
}

function openSocket(dial: typeof connect, target: DialTarget, port: number, signal: AbortSignal | undefined): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const socket = dial({ host: target.address, port, family: target.family });
    const onAbort = () => {
      socket.destroy();
      reject(signal?.reason instanceof Error ? signal.reason : new Error('connect aborted'));
    };
    const settle = () => {
      signal?.removeEventListener('abort', onAbort);
      socket.off('connect', onConnect);
      socket.off('error', onError);
    };
    const onConnect = () => {
      settle();
      resolve(socket);
    };
    const onError = (error: Error) => {
      settle();
      socket.destroy();
      reject(error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', onConnect);
    socket.once('error', onError);
  });
}
