/**
 * PostgreSQL's out-of-band CancelRequest: a new TCP connection to the same (pinned) address that
 * carries the backend's process id and secret key. It is how a running COPY or a cursor fetch is
 * stopped without killing the session, so the connection can go back to the pool afterwards.
 */
import { connect } from 'node:net';

const CANCEL_REQUEST_CODE = 80877102;

export interface CancelTarget {
  readonly address: string;
  readonly port: number;
  readonly processId: number;
  readonly secretKey: number;
}

/** The 16-byte message: length, request code, process id, secret key. */
export function cancelRequestBytes(processId: number, secretKey: number): Buffer {
  const message = Buffer.alloc(16);
  message.writeInt32BE(16, 0);
  message.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  message.writeInt32BE(processId | 0, 8);
  message.writeInt32BE(secretKey | 0, 12);
  return message;
}

/**
 * Best effort, and never rejects: the caller still bounds the wait for the statement to stop, and
 * drops the connection if it does not. The server answers a cancel request by closing the socket.
 */
export function sendCancelRequest(target: CancelTarget, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const socket = connect({ host: target.address, port: target.port });
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    socket.once('connect', () => socket.end(cancelRequestBytes(target.processId, target.secretKey)));
    socket.once('close', done);
    socket.once('error', done);
  });
}
