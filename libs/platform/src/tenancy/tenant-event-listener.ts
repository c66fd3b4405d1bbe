import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { parseTenantEvent, tenantEventsChannel, type TenantLifecycleEvent } from './tenant-event';
import { TenantEventDispatcher, type TenantEventHandler, type TenantEventOutcome } from './tenant-event-dispatcher';

/** The Redis that carries tenant events (`MULTI_TENANT_REDIS_*`): no user name, no database index. */
export interface TenantEventsRedis {
  readonly host: string;
  readonly port?: number;
  readonly password?: string;
  /** TLS 1.2 or later, verified against the system's trust store. */
  readonly tls?: boolean;
}

export interface TenantEventListenerOptions {
  readonly redis: TenantEventsRedis;
  /** Picks the channel `tenant-events:{environment}:`; the services allow only staging and production. */
  readonly environment: string;
  readonly handler: TenantEventHandler;
  /** Default `fetcher`. */
  readonly service?: string;
  /** Default: uniform 0–5 s before a reactivation or reload. */
  readonly jitterMs?: () => number;
  /** Shown by `CLIENT LIST`, so an operator can tell this connection apart. */
  readonly connectionName?: string;
  /** Called after each event is handled (metrics, tests). */
  readonly onDispatched?: (event: TenantLifecycleEvent, outcome: TenantEventOutcome) => void;
  readonly logger?: Pick<Logger, 'log' | 'warn'>;
}

/**
 * Subscribes to the tenant-manager's lifecycle events and hands them to a `TenantEventHandler`.
 * Events for one tenant are handled one after another in arrival order; different tenants do not
 * wait for each other. A bad message or a failing handler is logged and never stops the listener.
 *
 * Pub/Sub delivers only to connected subscribers: events published while Redis is unreachable are
 * lost. The connection is retried in the background and the channel subscribed again; the Worker's
 * reconciler catches up with whatever was missed.
 */
export class TenantEventListener {
  readonly channel: string;
  readonly #client: Redis;
  readonly #dispatcher: TenantEventDispatcher;
  readonly #logger: Pick<Logger, 'log' | 'warn'>;
  readonly #queues = new Map<string, Promise<void>>();
  readonly #closing = new AbortController();
  #closed: Promise<void> | undefined;

  constructor(private readonly options: TenantEventListenerOptions) {
    this.channel = tenantEventsChannel(options.environment);
    this.#logger = options.logger ?? new Logger('TenantEvents');
    this.#dispatcher = new TenantEventDispatcher(options.handler, { service: options.service, jitterMs: options.jitterMs });
    this.#client = new Redis({
      host: options.redis.host,
      port: options.redis.port ?? 6379,
      ...(options.redis.password ? { password: options.redis.password } : {}),
      ...(options.redis.tls ? { tls: { minVersion: 'TLSv1.2' } } : {}),
      ...(options.connectionName ? { connectionName: options.connectionName } : {}),
      lazyConnect: true,
      connectTimeout: 5_000,
      // Keep trying while Redis is away; ioredis subscribes to the channel again once it is back.
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    // Errors while Redis is away are expected; `ready` and `subscribed` tell the state.
    this.#client.on('error', () => undefined);
    this.#client.on('message', (channel: string, message: string) => {
      if (channel === this.channel) this.#receive(message);
    });
  }

  /** Connects, PINGs and subscribes; rejects (and stops retrying) when Redis cannot be reached. */
  async start(): Promise<void> {
    try {
      await this.#client.connect();
      await this.#client.ping();
      await this.#client.subscribe(this.channel);
    } catch (error) {
      this.#client.disconnect();
      throw error;
    }
  }

  /** Whether the connection is up and subscribed (for readiness). */
  get subscribed(): boolean {
    return this.#client.status === 'ready';
  }

  /** A PING over the subscriber connection (allowed in subscribe mode), for the readiness check. */
  ping(): Promise<unknown> {
    return this.#client.ping();
  }

  /**
   * Stops receiving, cuts short any jitter wait, lets handler calls in progress finish, then closes
   * the connection. Calling it again returns the same promise.
   */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#closing.abort();
      this.#client.removeAllListeners('message');
      await Promise.all(this.#queues.values());
      try {
        await this.#client.quit();
      } catch {
        this.#client.disconnect();
      }
    })();
    return this.#closed;
  }

  #receive(message: string): void {
    const parsed = parseTenantEvent(message);
    if (!parsed.ok) {
      this.#logger.warn(`tenant event skipped: ${parsed.reason}`);
      return;
    }
    const { event } = parsed;
    const previous = this.#queues.get(event.tenantId) ?? Promise.resolve();
    const next = previous.then(() => this.#handle(event));
    this.#queues.set(event.tenantId, next);
    void next.then(() => {
      if (this.#queues.get(event.tenantId) === next) this.#queues.delete(event.tenantId);
    });
  }

  async #handle(event: TenantLifecycleEvent): Promise<void> {
    if (this.#closing.signal.aborted) return;
    try {
      const outcome = await this.#dispatcher.dispatch(event, this.#closing.signal);
      if (outcome === 'ignored:unknown-type') this.#logger.warn(`tenant event of unknown type skipped: ${event.eventType}`);
      else if (!outcome.startsWith('ignored')) this.#logger.log(`tenant ${event.tenantId}: ${event.eventType} -> ${outcome}`);
      this.options.onDispatched?.(event, outcome);
    } catch (error) {
      const reason = error instanceof Error ? error.name : 'error';
      this.#logger.warn(`tenant ${event.tenantId}: handling ${event.eventType} failed (${reason})`);
    }
  }
}
