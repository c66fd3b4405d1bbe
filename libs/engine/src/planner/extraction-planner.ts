/**
 * The planner. Each gate runs before the next, and the result is deterministic: the same
 * request gives a deep-equal plan whatever the key order of its objects.
 */
import { EngineError, ErrorText, invalidFilterText, schemaValidationFailedText, unknownDatasourceText } from '../errors';
import type { ColumnKind, ExtractionPlan, PlanStep, SchemaSnapshot, TenantContext } from '../models';
import type { Limits } from '../limits';
import { requireStore, type EngineContext } from '../engine-context';
import { requireTenant } from '../tenant';
import { applyOverrides } from '../limits';
import { Deadline } from '../support/deadline';
import { setOwn } from '../support/guards';
import type { StoreAccess } from '../connections/store-access';
import type { SchemaOperations } from '../schema/schema-operations';
import type { ValidationDatasource } from '../schema/validation-request';
import { filterFieldNames, readConfigFilters } from './filter-reader';
import { filterProblems } from './filter-problems';
import { checkIncrementalShape, readConfigIncremental } from './incremental-reader';
import { copyMetadata, readMappedFields, readRequestObject, sortedUnique, type Selection } from './request-reader';

export class ExtractionPlanner {
  readonly #context: EngineContext;
  readonly #schema: SchemaOperations;

  constructor(context: EngineContext, schema: SchemaOperations) {
    this.#context = context;
    this.#schema = schema;
  }

  async plan(tenantValue: unknown, requestValue: unknown, host: AbortSignal | undefined): Promise<ExtractionPlan> {
    const store = requireStore(this.#context);
    const tenant = requireTenant(tenantValue);
    const request = readRequestObject(requestValue);
    const selection = readMappedFields(request.mappedFields);
    // Refused, not ignored: a filter the plan would drop makes the job look filtered when it is not.
    const problems = filterProblems(request.mappedFields, request.filters);
    if (problems.length > 0) throw new EngineError('validation', invalidFilterText(problems.map((p) => p.message)), problems);
    checkIncrementalShape(request.incremental, selection);
    const limits = applyOverrides(this.#context.limits, request.overrides);
    const metadata = copyMetadata(request.metadata);
    await this.#probe(store, tenant, [...selection.keys()], limits, host);

    const datasources = validationDatasources(selection, request.filters);
    const { report, snapshots } = await this.#context.tracer.run(
      'engine.schema.validate',
      { 'tenant.id': tenant.tenantId },
      () => this.#schema.validateDetailed(store, tenant, datasources, limits, host),
    );
    if (!report.valid) {
      // Quirk (kept): count-limit breaches surface as validation. The report also rides as the cause;
      // the message names each failure (the request's own names), so a failed job says what is wrong.
      const unknown = report.failures.filter((f) => f.type === 'datasource_not_found').map((f) => f.configName ?? '');
      throw unknown.length > 0
        ? new EngineError('not_found', unknownDatasourceText(unknown), report)
        : new EngineError('validation', schemaValidationFailedText(report.failures), report);
    }

    const steps = [...selection].map(([configName, tables], ordinal) =>
      planStep(ordinal, configName, tables, request, snapshots.get(configName)),
    );
    const plan: { -readonly [K in keyof ExtractionPlan]: ExtractionPlan[K] } = { tenantId: tenant.tenantId, steps, limits, mode: 'auto' };
    if (tenant.requestId !== undefined) plan.requestId = tenant.requestId;
    if (metadata !== undefined) plan.metadata = metadata;
    return plan;
  }

  /** Gate 5: at most maxDatasources + 1 lookups, in sorted order, before the count check. */
  async #probe(store: StoreAccess, tenant: TenantContext, names: readonly string[], limits: Limits, host: AbortSignal | undefined): Promise<void> {
    const deadline = new Deadline(host, undefined);
    const budget = Math.min(names.length, limits.maxDatasources + 1);
    for (const name of names.slice(0, budget)) {
      if (name.trim() === '') throw new EngineError('validation', ErrorText.blankConfigName);
      deadline.throwIfAborted();
      if (!(await deadline.race(store.find(tenant, name)))) throw new EngineError('not_found', unknownDatasourceText([name]));
    }
    if (names.length > limits.maxDatasources) throw new EngineError('validation', ErrorText.tooManyDatasources);
  }
}

function validationDatasources(selection: Selection, filters: unknown): ValidationDatasource[] {
  return [...selection].map(([configName, tables]) => {
    const filterNames = filterFieldNames(filters, configName);
    return {
      configName,
      tables: [...tables].map(([name, fields]) => ({ name, fields, filterFields: filterNames.get(name) ?? [] })),
    };
  });
}

function planStep(
  ordinal: number,
  configName: string,
  tables: ReadonlyMap<string, readonly string[]>,
  request: Record<string, unknown>,
  snapshot: SchemaSnapshot | undefined,
): PlanStep {
  const byName = new Map((snapshot?.tables ?? []).map((t) => [t.name, t] as const));
  const incremental = readConfigIncremental(request.incremental, configName, (table) => byName.get(table));
  const fields: Record<string, readonly string[]> = {};
  for (const [table, selected] of tables) {
    // Gate 8: "*" becomes every field of the table; the other names were validated already.
    const expanded = selected.includes('*') ? sortedUnique(byName.get(table)?.fields ?? []) : [...selected];
    // The runner tracks positions from the rows, so an incremental table always carries both fields.
    const spec = incremental?.[table];
    setOwn(fields, table, spec ? sortedUnique([...expanded, spec.cursorField, spec.tieBreaker]) : expanded);
  }
  const kindOf = (table: string, field: string): ColumnKind | undefined => {
    if (!tables.has(table)) return undefined; // unreachable: filterProblems refused filters on unmapped tables
    return byName.get(table)?.columns?.find((c) => c.name === field)?.kind ?? 'other';
  };
  const stepFilters = readConfigFilters(request.filters, configName, kindOf);
  const step: { -readonly [K in keyof PlanStep]: PlanStep[K] } = { ordinal, configName, tables: [...tables.keys()], fields };
  if (stepFilters !== undefined) step.filters = stepFilters;
  if (incremental !== undefined) step.incremental = incremental;
  return step;
}
