/** Builders shared by the engine's unit tests: a fresh in-memory world per test. */
import { type ConnectionDescriptor, ConnectionInput, createEngine, createTenantContext, type EngineOptions, type Row, type TenantContext } from '../index';
import {
  MemoryConnectionStore,
  MemoryConnectorFactory,
  MemoryConnectorRegistry,
  TemplateConnector,
  type ConnectorBehavior,
} from '../memory';

export const TENANT: TenantContext = createTenantContext('acme');
export const OTHER_TENANT: TenantContext = createTenantContext('globex');

/** A stored connection of the in-memory connector type, for store tests. */
export function aDescriptor(configName: string, id = `id-${configName}`): ConnectionDescriptor {
  return { id, configName, type: 'memory', host: 'h', port: 1, databaseName: 'd', userName: 'u' };
}

export const USERS: readonly Row[] = [
  { id: 1, name: 'Ada', active: true },
  { id: 2, name: 'Linus', active: false },
];
export const ORDERS: readonly Row[] = [{ id: 10, total: '12.50', user_id: 1 }];

export function anInput(configName = 'crm', overrides: Partial<ConstructorParameters<typeof ConnectionInput>[0]> = {}): ConnectionInput {
  return new ConnectionInput({
    configName,
    type: 'memory',
    host: 'db.internal',
    port: 5432,
    databaseName: 'crm',
    userName: 'reader',
    password: 's3cret',
    ...overrides,
  });
}

export interface World {
  readonly registry: MemoryConnectorRegistry;
  readonly factory: MemoryConnectorFactory;
  readonly template: TemplateConnector;
  readonly store: MemoryConnectionStore;
  readonly engine: ReturnType<typeof createEngine>;
}

/** An engine over one `memory` connector type with users and orders, plus any extra options. */
export function aWorld(options: Partial<EngineOptions> = {}, behavior: ConnectorBehavior = { rows: { users: USERS, orders: ORDERS } }): World {
  const template = new TemplateConnector(behavior);
  const factory = new MemoryConnectorFactory(template);
  const registry = new MemoryConnectorRegistry().register('memory', factory);
  const store = new MemoryConnectionStore();
  const engine = createEngine({ connectorRegistry: registry, connectionStore: store, ...options });
  return { registry, factory, template, store, engine };
}

/** A world with connections already created (default: `crm`). */
export async function aWorldWith(names: readonly string[] = ['crm'], options: Partial<EngineOptions> = {}, behavior?: ConnectorBehavior): Promise<World> {
  const world = aWorld(options, behavior);
  for (const name of names) await world.engine.createConnection(TENANT, anInput(name));
  return world;
}

export function text(bytes: Uint8Array | undefined): string {
  return new TextDecoder().decode(bytes);
}

export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Records events and lets a test await "at least n of them", instead of sleeping. */
export class EventLog<T> {
  readonly items: T[] = [];
  readonly #waiters: { n: number; done: () => void }[] = [];

  push(item: T): void {
    this.items.push(item);
    for (const waiter of [...this.#waiters]) {
      if (this.items.length >= waiter.n) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.done();
      }
    }
  }

  until(n: number): Promise<void> {
    if (this.items.length >= n) return Promise.resolve();
    return new Promise<void>((done) => this.#waiters.push({ n, done }));
  }
}

/** An Observability that records span names and the category each ended with. */
export class RecordingObservability {
  readonly spans: { name: string; attributes?: Readonly<Record<string, unknown>>; ended?: string }[] = [];

  startSpan(name: string, attributes?: Readonly<Record<string, string | number | boolean>>): { end(error?: { category: string }): void } {
    const span: { name: string; attributes?: Readonly<Record<string, unknown>>; ended?: string } = { name, attributes };
    this.spans.push(span);
    return { end: (error) => void (span.ended = error ? error.category : 'ok') };
  }
}
