import type { OnApplicationShutdown } from '@nestjs/common';
import type { CircuitBreaker } from '@fetcher/platform';
import { type AmqpConnectionManager, connect } from 'amqp-connection-manager';
import { reconnectDelaySec } from './reconnect-backoff';

/**
 * One connection for consuming and a separate one for events, so a flow-controlled publisher can
 * never stall deliveries (and the reverse). Each is opened on first use and reconnects on its own.
 */
export class AmqpConnections implements OnApplicationShutdown {
  #consumer: AmqpConnectionManager | undefined;
  #publisher: AmqpConnectionManager | undefined;

  /** `breaker` follows the consumer connection: opened by repeated failures, closed by a connect. */
  constructor(
    private readonly url: string,
    readonly breaker: CircuitBreaker,
  ) {}

  get consumer(): AmqpConnectionManager {
    return (this.#consumer ??= this.#open());
  }

  get publisher(): AmqpConnectionManager {
    return (this.#publisher ??= this.#open());
  }

  get connected(): boolean {
    return (this.#consumer?.isConnected() ?? false) && (this.#publisher?.isConnected() ?? false);
  }

  /**
   * Resolves once both connections are open (at once when they are); rejects after `ms` or when
   * `signal` aborts. The manager's own `connect({ timeout })` is not used: it waits for the next
   * 'connect' event even when already connected, and leaves its listener behind on a timeout.
   */
  async waitConnected(ms: number, signal?: AbortSignal): Promise<void> {
    await allConnectedWithin([this.consumer, this.publisher], ms, signal);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([this.#consumer?.close(), this.#publisher?.close()]);
  }

  #open(): AmqpConnectionManager {
    const manager = connect([this.url], { heartbeatIntervalInSeconds: 5, reconnectTimeInSeconds: 1 });
    // Connection errors are retried by the manager; without a listener an 'error' event would end the process.
    manager.on('error', () => undefined);
    // The manager waits `reconnectTimeInSeconds` after emitting these events, so setting it here
    // turns its fixed retry interval into exponential backoff with full jitter.
    let failures = 0;
    const failed = ({ err }: { err?: Error }): void => {
      failures++;
      this.breaker.recordFailure();
      manager.reconnectTimeInSeconds = reconnectDelaySec(failures, err);
    };
    manager.on('connect', () => {
      failures = 0;
      this.breaker.recordSuccess();
    });
    manager.on('connectFailed', failed);
    manager.on('disconnect', failed);
    return manager;
  }
}

/** One timer and one abort listener for all of them, so every listener is gone when this settles. */
function allConnectedWithin(managers: readonly AmqpConnectionManager[], ms: number, signal: AbortSignal | undefined): Promise<void> {
  const connected = () => managers.every((manager) => manager.isConnected());
  if (connected()) return Promise.resolve();
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise((resolve, reject) => {
    const settle = (error?: Error): void => {
      clearTimeout(timer);
      for (const manager of managers) manager.off('connect', onConnect);
      signal?.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve();
    };
    const onConnect = (): void => {
      if (connected()) settle();
    };
    const onAbort = (): void => settle(abortReason(signal!));
    const timer = setTimeout(() => settle(new Error(`RabbitMQ not connected within ${ms} ms`)), ms);
    for (const manager of managers) manager.on('connect', onConnect);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
