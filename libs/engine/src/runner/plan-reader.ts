/**
 * Reading a plan handed back by the host. Hosts edit plans (the Worker sets
 * `requestId` and `mode`) and may build them by hand, so the runner re-checks every part, sorts
 * what the document order depends on, and never lets a plan raise the engine's limits.
 */
import { EngineError, ErrorText } from '../errors';
import { compareUtf8 } from '../canonical/encode';
import type { ColumnKind, ExecutionMode, FilterCondition, IncrementalQuery, OrderableKind, QueryRequest, TenantContext } from '../models';
import { ORDERABLE_KINDS, positionBounds } from '../incremental/position';
import { isValidLag, windowStart } from '../incremental/lag-window';
import type { Limits } from '../limits';
import { capLimits } from '../limits';
import { requireTenant } from '../tenant';
import { getOwn, isNonBlankString, isObjectLike, isPlainObject, isPositiveInteger, isStringArray, setOwn } from '../support/guards';

export interface RunnableStep {
  readonly ordinal: number;
  readonly configName: string;
  readonly tables: readonly string[];
  readonly query: QueryRequest;
}

export interface RunnablePlan {
  readonly tenant: TenantContext;
  readonly requestId?: string;
  readonly steps: readonly RunnableStep[];
  readonly limits: Limits;
  readonly mode: ExecutionMode;
}

const MODES: ReadonlySet<string> = new Set(['auto', 'direct', 'store']);

export function readPlan(value: unknown, engineLimits: Limits): RunnablePlan {
  if (!isObjectLike(value)) throw invalidPlan();
  const tenant = requireTenant({ tenantId: value.tenantId });
  const { requestId, mode } = value;
  if (requestId !== undefined && typeof requestId !== 'string') throw invalidPlan();
  if (typeof mode !== 'string' || !MODES.has(mode)) throw invalidPlan();
  const limits = capLimits(engineLimits, value.limits);
  if (!limits || !Array.isArray(value.steps) || value.steps.length === 0) throw invalidPlan();
  const read = (value.steps as unknown[]).map(readStep).sort((a, b) => compareUtf8(a.configName, b.configName));
  for (let i = 1; i < read.length; i++) if (read[i - 1].configName === read[i].configName) throw invalidPlan();
  const steps = read.map((step, ordinal) => ({ ...step, ordinal }));
  const plan: { -readonly [K in keyof RunnablePlan]: RunnablePlan[K] } = { tenant, steps, limits, mode: mode as ExecutionMode };
  if (requestId !== undefined) plan.requestId = requestId;
  return plan;
}

function readStep(value: unknown): Omit<RunnableStep, 'ordinal'> {
  if (!isObjectLike(value) || !isNonBlankString(value.configName)) throw invalidPlan();
  const { configName, tables, fields, filters, incremental } = value;
  if (!isStringArray(tables) || tables.length === 0 || !isObjectLike(fields)) throw invalidPlan();
  const sorted = [...tables].sort(compareUtf8);
  const selected: Record<string, readonly string[]> = {};
  for (let i = 0; i < sorted.length; i++) {
    if (sorted[i] === '' || (i > 0 && sorted[i - 1] === sorted[i])) throw invalidPlan();
    const list = getOwn(fields, sorted[i]);
    if (!isStringArray(list)) throw invalidPlan();
    setOwn(selected, sorted[i], [...list]);
  }
  const query: { -readonly [K in keyof QueryRequest]: QueryRequest[K] } = { configName, tables: selected };
  const queryFilters = readFilters(filters, sorted);
  if (queryFilters) query.filters = queryFilters;
  const queryIncremental = readIncremental(incremental, selected);
  if (queryIncremental) query.incremental = queryIncremental;
  return { configName, tables: sorted, query };
}

/** Only mapped tables' filters reach the connector; a filter on another table is ignored here. */
function readFilters(value: unknown, tables: readonly string[]): QueryRequest['filters'] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw invalidPlan();
  const copy: Record<string, Record<string, FilterCondition>> = {};
  for (const table of tables) {
    const byField = getOwn(value, table);
    if (byField === undefined) continue;
    if (!isPlainObject(byField)) throw invalidPlan();
    const fields: Record<string, FilterCondition> = {};
    for (const [field, condition] of Object.entries(byField)) {
      if (!isPlainObject(condition) || !Object.values(condition).every((v) => v === undefined || Array.isArray(v))) {
        throw invalidPlan();
      }
      setOwn(fields, field, Object.fromEntries(
        Object.entries(condition).filter(([, v]) => v !== undefined).map(([op, v]) => [op, [...(v as unknown[])]]),
      ));
    }
    if (Object.keys(fields).length > 0) setOwn(copy, table, fields);
  }
  return Object.keys(copy).length > 0 ? copy : undefined;
}

/** A plan's incremental tables, re-checked (hosts may edit plans) and with `after` bound as the connector binds it. */
function readIncremental(value: unknown, fields: Readonly<Record<string, readonly string[]>>): QueryRequest['incremental'] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw invalidPlan();
  const copy: Record<string, IncrementalQuery> = {};
  for (const [table, spec] of Object.entries(value)) {
    const selected = getOwn(fields, table) as readonly string[] | undefined;
    if (!selected || !isPlainObject(spec)) throw invalidPlan();
    const { cursorField, cursorKind, tieBreaker, tieBreakerKind, after, limit, nulls, lag } = spec;
    if (typeof cursorField !== 'string' || typeof tieBreaker !== 'string') throw invalidPlan();
    if (!selected.includes(cursorField) || !selected.includes(tieBreaker)) throw invalidPlan();
    if (typeof cursorKind !== 'string' || !ORDERABLE_KINDS.has(cursorKind as ColumnKind)) throw invalidPlan();
    if (typeof tieBreakerKind !== 'string' || !ORDERABLE_KINDS.has(tieBreakerKind as ColumnKind)) throw invalidPlan();
    if (nulls !== undefined && nulls !== 'first') throw invalidPlan();
    if (limit !== undefined && !isPositiveInteger(limit)) throw invalidPlan();
    const query: { -readonly [K in keyof IncrementalQuery]: IncrementalQuery[K] } = {
      cursorField,
      cursorKind: cursorKind as OrderableKind,
      tieBreaker,
      tieBreakerKind: tieBreakerKind as OrderableKind,
    };
    if (nulls === 'first') query.nulls = 'first';
    if (after !== undefined && after !== null) {
      const bounds = positionBounds(query, after);
      if (!bounds) throw invalidPlan();
      query.after = bounds;
    }
    if (limit !== undefined) query.limit = limit;
    if (lag !== undefined) {
      if (!isValidLag(query.cursorKind, lag)) throw invalidPlan();
      // No window before the first position, nor inside the NULL cursors (all of them come first).
      const start = query.after?.value == null ? undefined : windowStart(query.cursorKind, query.after.value, lag);
      if (start !== undefined) query.from = start;
    }
    setOwn(copy, table, query);
  }
  return Object.keys(copy).length > 0 ? copy : undefined;
}

function invalidPlan(): EngineError {
  return new EngineError('validation', ErrorText.invalidPlan);
}
