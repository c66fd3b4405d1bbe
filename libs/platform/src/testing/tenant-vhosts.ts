import { execFileSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One tenant's vhost and its own broker user (permissions on that vhost only). */
export interface TenantVhost {
  readonly tenantId: string;
  readonly vhost: string;
  readonly username: string;
  readonly password: string;
}

export interface TenantVhostsOptions {
  /** The work queue every vhost gets (dead-lettered to `fetcher.dlx` → `fetcher.dlq`), as the tenant-manager provisions it. */
  readonly workQueue?: string;
}

export interface TenantVhosts {
  readonly tenants: readonly TenantVhost[];
  readonly byTenant: (tenantId: string) => TenantVhost;
  /** Deletes the vhosts (with their queues) and users. */
  cleanup(): void;
}

const DEFAULT_WORK_QUEUE = 'fetcher.extract-external-data.queue';

/**
 * Creates a vhost and a user per tenant on the local broker with `rabbitmqctl`, in one definitions
 * import (each rabbitmqctl call starts a VM, about a second), with the Fetcher queues in each vhost.
 * Names carry a random suffix so concurrent suites never meet. Tests only.
 */
export function createTenantVhosts(tenantIds: readonly string[], options: TenantVhostsOptions = {}): TenantVhosts {
  const suffix = randomUUID().slice(0, 8);
  const workQueue = options.workQueue ?? DEFAULT_WORK_QUEUE;
  const tenants = tenantIds.map((tenantId) => ({
    tenantId,
    vhost: `t-${tenantId}-${suffix}`,
    username: `u-${tenantId}-${suffix}`,
    password: randomBytes(12).toString('hex'),
  }));
  const perVhost = <T>(make: (vhost: string) => T[]) => tenants.flatMap((t) => make(t.vhost));
  const definitions = {
    users: tenants.map((t) => ({ name: t.username, password_hash: passwordHash(t.password), hashing_algorithm: 'rabbit_password_hashing_sha256', tags: [] })),
    vhosts: tenants.map((t) => ({ name: t.vhost })),
    permissions: tenants.flatMap((t) => [
      { user: t.username, vhost: t.vhost, configure: '.*', write: '.*', read: '.*' },
      // The test itself inspects the vhosts as guest.
      { user: 'guest', vhost: t.vhost, configure: '.*', write: '.*', read: '.*' },
    ]),
    exchanges: perVhost((vhost) => [
      { name: 'fetcher.dlx', vhost, type: 'direct', durable: true, auto_delete: false, internal: false, arguments: {} },
    ]),
    queues: perVhost((vhost) => [
      { name: workQueue, vhost, durable: true, auto_delete: false, arguments: { 'x-dead-letter-exchange': 'fetcher.dlx', 'x-dead-letter-routing-key': 'fetcher.dlq.key' } },
      { name: 'fetcher.dlq', vhost, durable: true, auto_delete: false, arguments: {} },
    ]),
    bindings: perVhost((vhost) => [
      { source: 'fetcher.dlx', vhost, destination: 'fetcher.dlq', destination_type: 'queue', routing_key: 'fetcher.dlq.key', arguments: {} },
    ]),
  };
  // rabbitmqctl runs as the broker's user, so the file must be readable by others.
  const work = mkdtempSync(join(tmpdir(), 'fetcher-tenant-vhosts-'));
  chmodSync(work, 0o755);
  const file = join(work, 'definitions.json');
  writeFileSync(file, JSON.stringify(definitions), { mode: 0o644 });
  try {
    rabbitmqctl('import_definitions', file);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  let cleaned = false;
  return {
    tenants,
    byTenant: (tenantId) => {
      const found = tenants.find((t) => t.tenantId === tenantId);
      if (!found) throw new Error(`no vhost for tenant ${tenantId}`);
      return found;
    },
    cleanup: () => {
      if (cleaned) return;
      cleaned = true;
      // One VM start for all of them.
      const list = (names: string[]) => `[${names.map((n) => `<<"${n}">>`).join(',')}]`;
      rabbitmqctl('eval', [
        `lists:foreach(fun(V) -> rabbit_vhost:delete(V, <<"test">>) end, ${list(tenants.map((t) => t.vhost))}),`,
        `lists:foreach(fun(U) -> rabbit_auth_backend_internal:delete_user(U, <<"test">>) end, ${list(tenants.map((t) => t.username))}).`,
      ].join(' '));
    },
  };
}

function rabbitmqctl(...args: string[]): string {
  return execFileSync('rabbitmqctl', ['-q', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** RabbitMQ's `rabbit_password_hashing_sha256`: base64(salt ‖ sha256(salt ‖ password)), a 4-byte salt. */
function passwordHash(password: string): string {
  const salt = randomBytes(4);
  return Buffer.concat([salt, createHash('sha256').update(Buffer.concat([salt, Buffer.from(password, 'utf8')])).digest()]).toString('base64');
}
