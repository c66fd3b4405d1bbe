import { type Server } from 'node:http';
import { type INestApplication, type LoggerService } from '@nestjs/common';
import { Lifecycle, withinBound } from './lifecycle';

export interface RunGracefullyOptions {
  /** Seconds between the drain flag and stopping intake, so load balancers see `/readyz` fail first. */
  readonly drainDelaySec: number;
  readonly lifecycle?: Lifecycle;
  readonly logger?: Pick<LoggerService, 'log' | 'error'>;
  /** Bound on in-flight HTTP requests after the listener closes; 30 s when unset. */
  readonly httpStopTimeoutMs?: number;
  /** Bound on `app.close()` (connections); 10 s when unset. */
  readonly closeTimeoutMs?: number;
  /**
   * `first` (default): close the HTTP server, then the other subsystems (an API). `last`: keep it
   * answering `/readyz` while consumers finish their in-flight jobs (a worker's health server).
   */
  readonly httpServer?: 'first' | 'last';
  /** For tests; default `process`. */
  readonly process?: Pick<NodeJS.Process, 'once' | 'removeListener' | 'exit'>;
}

/** `READYZ_DRAIN_DELAY_SEC`: unset or 0 means 12 s; a negative value means 1 s. */
export function resolveDrainDelaySec(value: number | undefined): number {
  if (value === undefined || value === 0 || Number.isNaN(value)) return 12;
  return value < 0 ? 1 : value;
}

/**
 * Owns SIGTERM and SIGINT for a started app (use it instead of `app.enableShutdownHooks()`): mark the
 * process draining so `/readyz` answers 503 at once, wait `drainDelaySec`, stop intake (HTTP server and
 * subsystems, each bounded, in-flight work allowed to finish), close connections through `app.close()`,
 * then exit 0 (1 when a step failed or overran its bound). A subsystem reported failed while running
 * goes through the same sequence without the delay and exits 1.
 */
export function runGracefully(app: INestApplication, options: RunGracefullyOptions): { shutdown: (reason: string) => Promise<number> } {
  const proc = options.process ?? process;
  const lifecycle: Lifecycle = options.lifecycle ?? app.get<Lifecycle, Lifecycle>(Lifecycle, { strict: false });
  const logger = options.logger;
  let running: Promise<number> | undefined;

  const shutdown = (reason: string, delaySec = options.drainDelaySec, failed = false): Promise<number> => {
    running ??= (async () => {
      lifecycle.startDrain();
      logger?.log(`${reason}: draining; intake stops in ${delaySec} s`);
      await new Promise((resolve) => setTimeout(resolve, delaySec * 1000));
      let clean = !failed;
      const server = app.getHttpServer() as Server;
      const stopHttp = async () => { clean = (await closeHttpServer(server, options.httpStopTimeoutMs ?? 30_000)) && clean; };
      if (options.httpServer !== 'last') await stopHttp();
      clean = (await lifecycle.stopAll()) && clean;
      if (options.httpServer === 'last') await stopHttp();
      clean = (await withinBound(app.close(), options.closeTimeoutMs ?? 10_000)) && clean;
      const code = clean ? 0 : 1;
      logger?.log(`shutdown complete (exit code ${code})`);
      proc.removeListener('SIGTERM', onSigterm);
      proc.removeListener('SIGINT', onSigint);
      proc.exit(code);
      return code;
    })();
    return running;
  };

  const onSigterm = () => void shutdown('SIGTERM');
  const onSigint = () => void shutdown('SIGINT');
  proc.once('SIGTERM', onSigterm);
  proc.once('SIGINT', onSigint);
  lifecycle.onEvent((event) => {
    if (event.kind !== 'fatal') return;
    logger?.error(event.error.message);
    void shutdown(event.error.message, 0, true);
  });
  return { shutdown: (reason) => shutdown(reason) };
}

/**
 * Stops accepting connections, lets requests in flight finish within `boundMs`, then cuts what is
 * left. Idle keep-alive connections are closed at once so they cannot carry new requests.
 */
async function closeHttpServer(server: Server | undefined, boundMs: number): Promise<boolean> {
  if (!server?.listening) return true;
  const closed = new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  server.closeIdleConnections();
  const idleSweep = setInterval(() => server.closeIdleConnections(), 250);
  try {
    const clean = await withinBound(closed, boundMs);
    if (!clean) server.closeAllConnections();
    return clean;
  } finally {
    clearInterval(idleSweep);
  }
}
