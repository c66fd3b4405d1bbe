/**
 * The Engine behind createEngine: every operation in a span, every failure an EngineError. The
 * operation groups hold the rules; this class only routes and traces.
 */
import { EngineError } from './errors';
import type { ConnectionDescriptor, ExtractionPlan, ExtractionResult, Page, SchemaSnapshot, SchemaValidationReport } from './models';
import type { Limits } from './limits';
import type { Engine } from './engine-api';
import type { EngineContext } from './engine-context';
import { copyLimits } from './limits';
import { isTenantId } from './tenant';
import { readSignal } from './support/operation-options';
import { ConnectionOperations } from './connections/connection-operations';
import { ConnectionTester, type TestConnectionResult } from './connections/connection-tester';
import { SchemaOperations } from './schema/schema-operations';
import { ExtractionPlanner } from './planner/extraction-planner';
import { ExtractionRunner } from './runner/extraction-runner';

export class DefaultEngine implements Engine {
  readonly #context: EngineContext;
  readonly #connections: ConnectionOperations;
  readonly #tester: ConnectionTester;
  readonly #schema: SchemaOperations;
  readonly #planner: ExtractionPlanner;
  readonly #runner: ExtractionRunner;

  constructor(context: EngineContext) {
    this.#context = context;
    this.#connections = new ConnectionOperations(context);
    this.#tester = new ConnectionTester(context);
    this.#schema = new SchemaOperations(context);
    this.#planner = new ExtractionPlanner(context, this.#schema);
    this.#runner = new ExtractionRunner(context);
  }

  limits(): Limits {
    return copyLimits(this.#context.limits);
  }

  createConnection(t: unknown, input: unknown, options?: unknown): Promise<ConnectionDescriptor> {
    return this.#trace('engine.connection.create', t, options, () => this.#connections.create(t, input));
  }

  getConnection(t: unknown, configName: unknown, options?: unknown): Promise<ConnectionDescriptor> {
    return this.#trace('engine.connection.get', t, options, () => this.#connections.get(t, configName));
  }

  listConnections(t: unknown, options?: unknown): Promise<ConnectionDescriptor[]> {
    return this.#trace('engine.connection.list', t, options, () => this.#connections.list(t));
  }

  getConnectionById(t: unknown, id: unknown, options?: unknown): Promise<ConnectionDescriptor> {
    return this.#trace('engine.connection.get_by_id', t, options, () => this.#connections.getById(t, id));
  }

  listConnectionsPaged(t: unknown, query: unknown, options?: unknown): Promise<Page<ConnectionDescriptor>> {
    return this.#trace('engine.connection.list_paged', t, options, () => this.#connections.listPaged(t, query));
  }

  updateConnection(t: unknown, configName: unknown, patch: unknown, options?: unknown): Promise<ConnectionDescriptor> {
    return this.#trace('engine.connection.update', t, options, () => this.#connections.update(t, configName, patch));
  }

  deleteConnection(t: unknown, configName: unknown, options?: unknown): Promise<void> {
    return this.#trace('engine.connection.delete', t, options, () => this.#connections.delete(t, configName));
  }

  updateConnectionById(t: unknown, id: unknown, patch: unknown, options?: unknown): Promise<ConnectionDescriptor> {
    return this.#trace('engine.connection.update_by_id', t, options, () => this.#connections.updateById(t, id, patch));
  }

  deleteConnectionById(t: unknown, id: unknown, options?: unknown): Promise<void> {
    return this.#trace('engine.connection.delete_by_id', t, options, () => this.#connections.deleteById(t, id));
  }

  checkActiveExecutions(t: unknown, configName: unknown, options?: unknown): Promise<boolean> {
    // The one documented pass-through: the host's own checker error reaches the host unchanged.
    const passThrough = (error: unknown): boolean => !(error instanceof EngineError);
    return this.#trace(
      'engine.connection.check_active_executions',
      t,
      options,
      () => this.#connections.checkActiveExecutions(t, configName),
      passThrough,
    );
  }

  authorizeConnectionAccess(t: unknown, options?: unknown): Promise<void> {
    return this.#trace('engine.connection.authorize_access', t, options, () => this.#connections.authorizeAccess(t));
  }

  testConnection(t: unknown, configName: unknown, options?: unknown): Promise<TestConnectionResult> {
    return this.#trace('engine.connection.test', t, options, (signal) => this.#tester.test(t, configName, signal));
  }

  discoverSchema(t: unknown, configName: unknown, options?: unknown): Promise<SchemaSnapshot> {
    return this.#trace('engine.schema.discover', t, options, (signal) => this.#schema.discover(t, configName, signal));
  }

  discoverSchemaFresh(t: unknown, configName: unknown, options?: unknown): Promise<SchemaSnapshot> {
    return this.#trace('engine.schema.discover_fresh', t, options, (signal) => this.#schema.discoverFresh(t, configName, signal));
  }

  validateSchema(t: unknown, request: unknown, options?: unknown): Promise<SchemaValidationReport> {
    return this.#trace('engine.schema.validate', t, options, (signal) => this.#schema.validate(t, request, signal));
  }

  planExtraction(t: unknown, request: unknown, options?: unknown): Promise<ExtractionPlan> {
    return this.#trace('engine.extraction.plan', t, options, (signal) => this.#planner.plan(t, request, signal));
  }

  executeExtraction(plan: unknown, options?: unknown): Promise<ExtractionResult> {
    const tenant = typeof plan === 'object' && plan !== null ? { tenantId: (plan as { tenantId?: unknown }).tenantId } : undefined;
    return this.#trace('engine.extraction.execute', tenant, options, (signal) => this.#runner.execute(plan, signal));
  }

  async #trace<T>(
    name: string,
    tenant: unknown,
    options: unknown,
    work: (signal: AbortSignal | undefined) => Promise<T>,
    passThrough?: (error: unknown) => boolean,
  ): Promise<T> {
    return this.#context.tracer.run(name, spanAttributes(tenant), async () => work(readSignal(options)), passThrough);
  }
}

/** Only the tenant id, and only when it is a plain string: attributes must never carry secrets. */
function spanAttributes(tenant: unknown): Record<string, string> {
  const id = typeof tenant === 'object' && tenant !== null ? (tenant as { tenantId?: unknown }).tenantId : undefined;
  return typeof id === 'string' && isTenantId(id) ? { 'tenant.id': id } : {};
}
