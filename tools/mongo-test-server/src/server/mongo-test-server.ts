import { createServer, type Server, type Socket } from 'node:net';
import { CommandDispatcher } from '../commands/command-dispatcher';
import { CursorRegistry } from '../cursors/cursor-registry';
import { Storage } from '../storage/storage';
import { ClientConnection } from './client-connection';

export interface MongoTestServerOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** Defaults to 127.0.0.1. */
  readonly host?: string;
  /**
   * Extra fields for every `hello` reply, to impersonate a replica-set member (`setName`, `hosts`,
   * `me`) in tests of what a client does with them. Absent: a writable standalone.
   */
  readonly hello?: Readonly<Record<string, unknown>>;
}

/** A running in-memory server. All state is lost on close. */
export interface MongoTestServer {
  /** `mongodb://host:port`, ready for MongoClient or mongoose.connect. */
  readonly uri: string;
  readonly port: number;
  /** Stops listening, destroys open sockets and discards all data. */
  close(): Promise<void>;
  /** Command names that were answered with CommandNotFound; tests can assert none appeared. */
  unknownCommands(): readonly string[];
}

/** Starts a MongoDB wire-protocol server for tests. Resolves once it is listening. */
export async function startMongoTestServer(options: MongoTestServerOptions = {}): Promise<MongoTestServer> {
  const host = options.host ?? '127.0.0.1';
  const storage = new Storage();
  const cursors = new CursorRegistry();
  const dispatcher = new CommandDispatcher(storage, cursors, options.hello ?? {});
  const sockets = new Set<Socket>();
  let connectionIds = 0;
  let requestIds = 0;

  let closing: Promise<void> | undefined;

  const server = createServer((socket) => {
    // A connection still in the accept queue when close() ran would otherwise keep it waiting.
    if (closing) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    new ClientConnection(socket, ++connectionIds, dispatcher, () => ++requestIds);
  });
  await listen(server, options.port ?? 0, host);
  // After listening, an 'error' is a failed accept (EMFILE, ECONNABORTED): that one client is
  // lost, the listener keeps going. Without a listener Node would crash the whole test run.
  server.on('error', () => undefined);
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('mongo test server: no TCP address');
  const port = address.port;

  return {
    uri: `mongodb://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    unknownCommands: () => dispatcher.unknownCommands(),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        cursors.clear();
      });
      return closing;
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
