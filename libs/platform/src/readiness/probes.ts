import { type BreakerState, type ProbeResult, type ReadinessProbe } from './probe';

/** The ping target: a mongoose `Connection` (has a `db` property) or a `MongoClient` (has a `db()` method). */
export type MongoPingTarget =
  | { db(name?: string): MongoCommandTarget }
  | { readonly db?: MongoCommandTarget | undefined };
interface MongoCommandTarget {
  command(command: Record<string, unknown>, options?: Record<string, unknown>): Promise<unknown>;
}

export interface ProbeOptions {
  readonly name?: string;
  readonly timeoutMs?: number;
  /** Reported as `tls` in the check. */
  readonly tls?: boolean;
}

/** `mongodb`: a `ping` command, 2 s by default. */
export function mongoProbe(target: MongoPingTarget, options: ProbeOptions = {}): ReadinessProbe {
  const timeoutMs = options.timeoutMs ?? 2_000;
  return {
    name: options.name ?? 'mongodb',
    timeoutMs,
    async check() {
      const db = typeof target.db === 'function' ? target.db('admin') : (target as { readonly db?: MongoCommandTarget }).db;
      if (!db) return withTls({ status: 'down', error: 'not connected' }, options.tls);
      await db.command({ ping: 1 }, { timeoutMS: timeoutMs });
      return withTls({ status: 'up' }, options.tls);
    },
  };
}

/** What the AMQP adapter knows about itself, read without any network call. */
export interface AmqpState {
  readonly breaker: BreakerState;
  /** Whether the connection and its channel are open. */
  readonly connected: boolean;
  readonly tls?: boolean;
}

/** `rabbitmq`: open breaker is `down`, half-open is `degraded`, an open channel is `up`. */
export function amqpProbe(getState: () => AmqpState, options: ProbeOptions = {}): ReadinessProbe {
  return {
    name: options.name ?? 'rabbitmq',
    timeoutMs: options.timeoutMs ?? 2_000,
    check() {
      const state = getState();
      const base = { breaker_state: state.breaker, ...(state.tls === undefined ? {} : { tls: state.tls }) };
      if (state.breaker === 'open') return Promise.resolve({ ...base, status: 'down', error: 'circuit breaker open' });
      if (state.breaker === 'half-open') return Promise.resolve({ ...base, status: 'degraded', error: 'circuit breaker half-open' });
      return Promise.resolve(state.connected ? { ...base, status: 'up' } : { ...base, status: 'down', error: 'not connected' });
    },
  };
}

/** `redis`: PING, 1 s by default; an unconfigured client is `skipped`. */
export function redisProbe(client: { ping(): Promise<unknown> } | undefined, options: ProbeOptions & { skippedReason?: string } = {}): ReadinessProbe {
  return {
    name: options.name ?? 'redis',
    timeoutMs: options.timeoutMs ?? 1_000,
    async check() {
      if (!client) return { status: 'skipped', reason: options.skippedReason ?? 'not configured' };
      await client.ping();
      return withTls({ status: 'up' }, options.tls);
    },
  };
}

/** A check whose answer is known without asking anything (`n/a` in multi-tenant mode, `skipped`, a present client). */
export function staticProbe(name: string, result: ProbeResult): ReadinessProbe {
  return { name, timeoutMs: 1_000, check: () => Promise.resolve(result) };
}

function withTls(result: ProbeResult, tls: boolean | undefined): ProbeResult {
  return tls === undefined ? result : { ...result, tls };
}
