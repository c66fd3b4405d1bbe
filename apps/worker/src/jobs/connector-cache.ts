import { createHash } from 'node:crypto';
import type { OnApplicationShutdown } from '@nestjs/common';
import type { ConnectionDescriptor, Connector } from '@fetcher/engine';

export const CONNECTOR_CACHE = Symbol('ConnectorCache');

/** How long an idle datasource connector is kept for the next job, and how many are kept at most. */
export interface ConnectorReuseSettings {
  /** 0 turns reuse off: every job dials and closes its own connections, as before. */
  readonly idleMs: number;
  /** Idle connectors kept over all tenants and connections; the least recently returned goes first. */
  readonly maxIdle: number;
}

/** Checks, before a kept connector serves another job, that its host still passes host safety. */
export type HostRecheck = (descriptor: ConnectionDescriptor, signal: AbortSignal) => Promise<void>;

interface IdleEntry {
  readonly key: ConnectorKey;
  readonly tenantId: string;
  readonly connector: Connector;
  readonly timer: NodeJS.Timeout | undefined;
}

/**
 * The Worker's idle datasource connectors, kept between jobs so that the next job of the same
 * connection skips the dial (TCP, TLS, login) and reads the catalogue on a warm session.
 *
 * - A connector serves one job at a time: `take` removes it, `give` puts back only what a job that
 *   succeeded returns; a failed or canceled job closes its connectors instead.
 * - The key is the tenant, the connection, a fingerprint of everything the connector was built from
 *   (host, port, user, database, TLS mode, host attributes, the decrypted password and TLS material)
 *   and the job's schema scope. A changed password, host or certificate never meets the old pool:
 *   the first job with the new one closes what was kept under the old.
 * - Before a kept connector is handed out, its host goes through host safety again (`recheck`) and
 *   it must answer a ping; otherwise it is closed and the job builds a new one, which dials.
 * - Idle connectors close after `idleMs`, when more than `maxIdle` wait (oldest first), when their
 *   tenant is removed, and at shutdown.
 */
export class ConnectorCache implements OnApplicationShutdown {
  /** Insertion order is return order: the first entry is the least recently returned. */
  readonly #idle = new Map<Connector, IdleEntry>();
  #closed = false;

  constructor(
    private readonly settings: ConnectorReuseSettings,
    private readonly recheck: HostRecheck,
  ) {}

  get enabled(): boolean {
    return this.settings.idleMs > 0 && this.settings.maxIdle > 0 && !this.#closed;
  }

  /** Idle connectors held now. */
  get size(): number {
    return this.#idle.size;
  }

  /**
   * The most recently returned idle connector for this key, once its host has passed host safety
   * again and it has answered a ping; undefined when there is none or it fails either (it is closed,
   * and the job builds a new connector, which dials and reports any refusal as a fresh one would).
   */
  async take(tenantId: string, descriptor: ConnectionDescriptor, signal: AbortSignal): Promise<Connector | undefined> {
    const key = connectorKey(tenantId, descriptor);
    // Kept under the same connection with other credentials or another address: they changed, so
    // what was kept for the old ones will not serve again.
    const stale = [...this.#idle.values()].filter((e) => e.key.connection === key.connection && e.key.credentials !== key.credentials);
    await Promise.all(stale.map((e) => this.#drop(e)));
    const entry = [...this.#idle.values()].reverse().find((e) => sameKey(e.key, key));
    if (!entry) return undefined;
    this.#remove(entry);
    try {
      await this.recheck(descriptor, signal);
      await entry.connector.testConnection(signal);
    } catch {
      await closeQuietly(entry.connector);
      return undefined;
    }
    return entry.connector;
  }

  /** Keeps a connector of a job that succeeded for the next job of the same key; closes it if reuse is off. */
  async give(tenantId: string, descriptor: ConnectionDescriptor, connector: Connector): Promise<void> {
    if (!this.enabled) return closeQuietly(connector);
    const key = connectorKey(tenantId, descriptor);
    const timer = setTimeout(() => void this.#expire(connector), this.settings.idleMs);
    timer.unref();
    this.#idle.set(connector, { key, tenantId, connector, timer });
    const overflow = [...this.#idle.values()].slice(0, Math.max(0, this.#idle.size - this.settings.maxIdle));
    await Promise.all(overflow.map((e) => this.#drop(e)));
  }

  /** Closes the idle connectors of a removed tenant. */
  async evictTenant(tenantId: string): Promise<void> {
    await Promise.all([...this.#idle.values()].filter((e) => e.tenantId === tenantId).map((e) => this.#drop(e)));
  }

  /** Closes every idle connector and keeps none from now on (connectors given later are closed). */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#idle.values()].map((e) => this.#drop(e)));
  }

  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  async #expire(connector: Connector): Promise<void> {
    const entry = this.#idle.get(connector);
    if (entry) await this.#drop(entry);
  }

  #remove(entry: IdleEntry): void {
    if (entry.timer) clearTimeout(entry.timer);
    this.#idle.delete(entry.connector);
  }

  #drop(entry: IdleEntry): Promise<void> {
    this.#remove(entry);
    return closeQuietly(entry.connector);
  }
}

/** Which connector may serve a job: all three parts must match. */
export interface ConnectorKey {
  /** The tenant and the connection (its id and name). */
  readonly connection: string;
  /**
   * SHA-256 over every field a connector is built from except the job's schema scope: type,
   * address, database, user, TLS mode, key version, the other host attributes, and the decrypted
   * password and TLS material (read explicitly: they are non-enumerable and render as redacted).
   */
  readonly credentials: string;
  /** The schemas the job reads (the connector's catalogue reads are limited to them). */
  readonly scope: string;
}

export function connectorKey(tenantId: string, d: ConnectionDescriptor): ConnectorKey {
  const ssl = d.secrets?.ssl;
  const { schemaScope, ...attributes } = (d.hostAttributes ?? {}) as Record<string, unknown>;
  const material = [
    d.type, d.host, d.port, d.databaseName, d.schema ?? null, d.userName, d.sslMode ?? null, d.keyVersion ?? null,
    canonical(attributes), d.secrets?.password ?? null, ssl?.ca ?? null, ssl?.cert ?? null, ssl?.key ?? null,
  ];
  return {
    connection: JSON.stringify([tenantId, d.id ?? '', d.configName]),
    credentials: createHash('sha256').update(JSON.stringify(material)).digest('base64url'),
    scope: canonical(schemaScope ?? null),
  };
}

function sameKey(a: ConnectorKey, b: ConnectorKey): boolean {
  return a.connection === b.connection && a.credentials === b.credentials && a.scope === b.scope;
}

/** JSON with object keys sorted, so equal attributes give equal text whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

function closeQuietly(connector: Connector): Promise<void> {
  return connector.close().catch(() => undefined);
}
