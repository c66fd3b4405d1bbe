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
  /**
   * Called when the subscription is made after events may have been missed: late, because Redis was
   * unreachable at `start`, or again after a lost connection. The Worker reconciles then.
   */
  readonly onSubscribed?: () => void;
  /** Waits between failed subscribe attempts after the first (default: 250 ms doubling to 5 s, with jitter). */
  readonly retryDelayMs?: (attempt: number) => number;
  readonly logger?: Pick<Logger, 'log' | 'warn'>;
}

const RETRY_BASE_MS = 250;
const RETRY_CAP_MS = 5_000;

/** Exponential with jitter: 250 ms doubling, at most 5 s, each between half and all of that. */
export function subscribeRetryDelayMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempt - 1));
  return Math.floor(ceiling * (0.5 + random() / 2));
}

/**
 * Subscribes to the tenant-manager's lifecycle events and hands them to a `TenantEventHandler`.
 * Events for one tenant are handled one after another in arrival order; different tenants do not
 * wait for each other. A bad message or a failing handler is logged and never stops the listener.
 *
 * Pub/Sub delivers only to connected subscribers: events published while Redis is unreachable are
 * lost. The connection is retried in the background and the channel subscribed again; the Worker's
 * reconciler catches up with whatever was missed.
 *
 * Redis unreachable at startup does not stop the service: `start` reports it and the listener keeps
 * trying (the client reconnects with its backoff, and a failed subscribe is tried again, 250 ms
 * doubling to 5 s), subscribing as soon as Redis answers. Meanwhile `subscribed` is false and `ping`
 * fails at once, so readiness shows `multi_tenant_redis` down until the subscription exists.
 */
export class TenantEventListener {
  readonly channel: string;
  readonly #client: Redis;
  readonly #dispatcher: TenantEventDispatcher;
  readonly #logger: Pick<Logger, 'log' | 'warn'>;
  readonly #queues = new Map<string, Promise<void>>();
  readonly #closing = new AbortController();
  readonly #retryDelayMs: (attempt: number) => number;
  #closed: Promise<void> | undefined;
  #started: Promise<boolean> | undefined;
  /** The channel is subscribed on the current connection. */
  #subscribed = false;
  /** It has been subscribed once: a lost connection is then subscribed again. */
  #everSubscribed = false;
  /** The subscribe loop in progress, if any. */
  #retrying: Promise<void> | undefined;

  constructor(private readonly options: TenantEventListenerOptions) {
    this.channel = tenantEventsChannel(options.environment);
    this.#logger = options.logger ?? new Logger('TenantEvents');
    this.#dispatcher = new TenantEventDispatcher(options.handler, { service: options.service, jitterMs: options.jitterMs });
    this.#retryDelayMs = options.retryDelayMs ?? ((attempt) => subscribeRetryDelayMs(attempt));
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
    this.#client.on('close', () => {
      this.#subscribed = false;
    });
    // ioredis subscribes the channel again after a reconnect, but only after 'ready' is emitted, and
    // without telling when it is done: subscribing here too says when (a repeat is harmless).
    this.#client.on('ready', () => {
      if (this.#everSubscribed && !this.#subscribed && !this.#closing.signal.aborted) this.#subscribeInBackground();
    });
  }

  /**
   * Connects, PINGs and subscribes. Resolves `true` once subscribed; when that fails (Redis
   * unreachable, or refusing the subscription), resolves `false` and keeps trying in the background
   * until it subscribes or the listener closes. Never rejects. Calling it again returns the same promise.
   */
  start(): Promise<boolean> {
    this.#started ??= this.#start();
    return this.#started;
  }

  async #start(): Promise<boolean> {
    try {
      await this.#client.connect();
      await this.#client.ping();
      await this.#client.subscribe(this.channel);
      this.#subscribed = true;
      this.#everSubscribed = true;
      return true;
    } catch (error) {
      if (this.#closing.signal.aborted) return false;
      this.#logger.warn(`tenant events: cannot subscribe to ${this.channel} (${reasonOf(error)}); retrying in the background, multi_tenant_redis is down until then`);
      this.#subscribeInBackground();
      return false;
    }
  }

  #subscribeInBackground(): void {
    this.#retrying ??= this.#retry().finally(() => (this.#retrying = undefined));
  }

  /**
   * Subscribes, again and again until it works. While the client reconnects (it does so on its own
   * after a failed connect), the command waits in its offline queue and runs once Redis answers; a
   * command the client gave up on, or Redis refused, is tried again after a growing wait.
   */
  async #retry(): Promise<void> {
    for (let attempt = 1; !this.#closing.signal.aborted; attempt++) {
      try {
        await this.#client.subscribe(this.channel);
        if (this.#closing.signal.aborted) return;
        this.#subscribed = true;
        const again = this.#everSubscribed;
        this.#everSubscribed = true;
        this.#logger.log(`tenant events: subscribed to ${this.channel}${again ? ' again' : ''} after ${attempt} attempt(s)`);
        this.options.onSubscribed?.();
        return;
      } catch (error) {
        if (this.#closing.signal.aborted) return;
        if (attempt % 10 === 1) this.#logger.warn(`tenant events: subscribe attempt ${attempt} failed (${reasonOf(error)}); still retrying`);
        await abortableDelay(this.#retryDelayMs(attempt), this.#closing.signal);
      }
    }
  }

  /** Whether the connection is up and the channel subscribed (for readiness). */
  get subscribed(): boolean {
    return this.#subscribed && this.#client.status === 'ready';
  }

  /**
   * A PING over the subscriber connection (allowed in subscribe mode), for the readiness check. Fails
   * at once while not subscribed: a PING queued behind a reconnect would only time out.
   */
  ping(): Promise<unknown> {
    if (!this.subscribed) return Promise.reject(new Error('not subscribed to tenant events'));
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
      // QUIT only over a live connection: queued behind a reconnect it would wait for Redis to return.
      if (this.#client.status !== 'ready') {
        this.#client.disconnect();
        return;
      }
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

/** A reason safe to log: the error's name or Redis's error code, never its message. */
function reasonOf(error: unknown): string {
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'string') return error.code;
  return error instanceof Error ? error.name : 'error';
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
