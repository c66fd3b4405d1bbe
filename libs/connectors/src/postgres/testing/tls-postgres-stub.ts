/**
 * Test helper: a loopback endpoint that speaks just enough of PostgreSQL's protocol behind TLS for a
 * connection test to pass: it accepts the SSLRequest, completes a TLS handshake with the given
 * server certificate (asking for a client certificate), trusts any startup, and answers every simple
 * query with one text row ('UTF8'). It records what the client sent in the handshake: the SNI name
 * and the client certificate's subject. The PostgreSQL on this machine has no TLS, so this is how
 * the TLS options are shown to reach the driver.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { TLSSocket } from 'node:tls';

const SSL_REQUEST_CODE = 80877103;

export interface TlsHandshake {
  readonly servername: string | false;
  readonly clientCertificateCn: string | undefined;
}

export class TlsPostgresStub {
  readonly handshakes: TlsHandshake[] = [];
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();

  constructor(private readonly pem: { readonly key: string; readonly cert: string; readonly ca: string }) {
    this.#server = createServer((socket) => this.#accept(socket));
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return (this.#server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(socket: Socket): void {
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.once('data', (first: Buffer) => {
      if (first.length < 8 || first.readInt32BE(4) !== SSL_REQUEST_CODE) return socket.destroy();
      socket.write('S');
      const tls = new TLSSocket(socket, {
        isServer: true,
        key: this.pem.key,
        cert: this.pem.cert,
        ca: this.pem.ca,
        requestCert: true,
        rejectUnauthorized: false,
      });
      this.#sockets.add(tls);
      tls.on('error', () => undefined);
      tls.on('close', () => this.#sockets.delete(tls));
      tls.once('secure', () => {
        const peer = tls.getPeerCertificate();
        const cn = peer.subject?.CN;
        this.handshakes.push({ servername: tls.servername ?? false, clientCertificateCn: Array.isArray(cn) ? cn[0] : cn });
      });
      this.#speak(tls);
    });
  }

  /** Startup -> AuthenticationOk + ReadyForQuery; each simple query -> one row 'UTF8'; Terminate -> close. */
  #speak(tls: TLSSocket): void {
    let buffered = Buffer.alloc(0);
    let started = false;
    tls.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        if (!started) {
          if (buffered.length < 4 || buffered.length < buffered.readInt32BE(0)) return;
          buffered = buffered.subarray(buffered.readInt32BE(0));
          started = true;
          tls.write(Buffer.concat([frame('R', int32(0)), frame('K', Buffer.concat([int32(4242), int32(99)])), frame('Z', Buffer.from('I'))]));
          continue;
        }
        if (buffered.length < 5 || buffered.length < 1 + buffered.readInt32BE(1)) return;
        const code = String.fromCharCode(buffered[0]);
        buffered = buffered.subarray(1 + buffered.readInt32BE(1));
        if (code === 'X') return void tls.end();
        if (code === 'Q') tls.write(oneTextRow('server_encoding', 'UTF8'));
      }
    });
  }
}

function int32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(value);
  return b;
}

function int16(value: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeInt16BE(value);
  return b;
}

function frame(code: string, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(code, 'latin1'), int32(body.length + 4), body]);
}

function oneTextRow(column: string, value: string): Buffer {
  const description = Buffer.concat([int16(1), Buffer.from(`${column}\0`), int32(0), int16(0), int32(25), int16(-1), int32(-1), int16(0)]);
  const row = Buffer.concat([int16(1), int32(Buffer.byteLength(value)), Buffer.from(value)]);
  return Buffer.concat([frame('T', description), frame('D', row), frame('C', Buffer.from('SELECT 1\0')), frame('Z', Buffer.from('I'))]);
}
