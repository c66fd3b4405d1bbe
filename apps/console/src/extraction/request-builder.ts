/**
 * What the New extraction page builds: the `POST /v1/fetcher` body from the operator's choices, and
 * which filter operators and value inputs a column's type allows. No DOM here, so it is unit-tested.
 */

export type Operator = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'between' | 'in' | 'nin' | 'like';
export const ALL_OPERATORS: readonly Operator[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'between', 'in', 'nin', 'like'];

export const OPERATOR_LABEL: Readonly<Record<Operator, string>> = {
  eq: 'equals',
  ne: 'differs from',
  gt: 'greater than',
  gte: 'at least',
  lt: 'less than',
  lte: 'at most',
  between: 'between (inclusive)',
  in: 'one of',
  nin: 'none of',
  like: 'matches pattern',
};

/** How a value is typed in: a number, a date, a date-time, true/false, or free text. */
export type ValueInput = 'number' | 'date' | 'datetime-local' | 'time' | 'boolean' | 'text';

const ORDERED: readonly Operator[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'between', 'in', 'nin'];

/** The operators that mean something for a column kind (the connectors' classification). */
export function operatorsFor(kind: string): readonly Operator[] {
  switch (kind) {
    case 'integer':
    case 'decimal':
    case 'float':
    case 'date':
    case 'datetime':
    case 'time':
      return ORDERED;
    case 'boolean':
      return ['eq', 'ne'];
    case 'string':
      return ALL_OPERATORS;
    case 'uuid':
    case 'objectId':
      return ['eq', 'ne', 'in', 'nin'];
    case 'json':
    case 'binary':
      return [];
    default:
      // Unknown type: every operator; the Worker refuses what the column cannot take.
      return ALL_OPERATORS;
  }
}

export function inputFor(kind: string): ValueInput {
  switch (kind) {
    case 'integer':
    case 'decimal':
    case 'float':
      return 'number';
    case 'date':
      return 'date';
    case 'datetime':
      return 'datetime-local';
    case 'time':
      return 'time';
    case 'boolean':
      return 'boolean';
    default:
      return 'text';
  }
}

/** How many values an operator takes: exactly one, exactly two, or a list. */
export function arityOf(operator: Operator): 1 | 2 | 'list' {
  if (operator === 'between') return 2;
  if (operator === 'in' || operator === 'nin') return 'list';
  return 1;
}

export interface FilterDraft {
  readonly table: string;
  readonly field: string;
  readonly kind: string;
  readonly operator: Operator;
  /** As typed: one entry per input; a list operator's single entry is comma-separated. */
  readonly values: readonly string[];
}

/** One typed-in text as the JSON value the API expects for the column kind. */
export function valueOf(text: string, kind: string): string | number | boolean {
  const trimmed = text.trim();
  if (inputFor(kind) === 'number' && trimmed !== '' && Number.isFinite(Number(trimmed))) {
    // Integers beyond 2^53 stay text: JSON would round them.
    return kind === 'integer' && !Number.isSafeInteger(Number(trimmed)) ? trimmed : Number(trimmed);
  }
  if (kind === 'boolean' && (trimmed === 'true' || trimmed === 'false')) return trimmed === 'true';
  if (kind === 'datetime' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(trimmed)) {
    // datetime-local has no zone; the console reads and sends UTC.
    return `${trimmed.length === 16 ? `${trimmed}:00` : trimmed}Z`;
  }
  return trimmed;
}

export function filterValues(filter: FilterDraft): (string | number | boolean)[] {
  const arity = arityOf(filter.operator);
  if (arity === 'list') {
    return (filter.values[0] ?? '')
      .split(',')
      .filter((part) => part.trim() !== '')
      .map((part) => valueOf(part, filter.kind));
  }
  return filter.values.slice(0, arity).map((v) => valueOf(v, filter.kind));
}

export interface ExtractionDraft {
  readonly datasource: string;
  readonly source: string;
  /** table → chosen fields; an empty list means every field (`"*"`). */
  readonly tables: Readonly<Record<string, readonly string[]>>;
  readonly filters: readonly FilterDraft[];
}

export function mappedFieldsOf(draft: ExtractionDraft): Record<string, Record<string, string[]>> {
  const tables: Record<string, string[]> = {};
  for (const [table, fields] of Object.entries(draft.tables)) tables[table] = fields.length === 0 ? ['*'] : [...fields];
  return { [draft.datasource]: tables };
}

/** The exact body the page sends to `POST /v1/fetcher`. */
export function jobRequestOf(draft: ExtractionDraft): Record<string, unknown> {
  const dataRequest: Record<string, unknown> = { mappedFields: mappedFieldsOf(draft) };
  const filters: Record<string, Record<string, Record<string, unknown[]>>> = {};
  for (const filter of draft.filters) {
    if (!filter.table || !filter.field) continue;
    const byField = (filters[filter.table] ??= {});
    const byOperator = (byField[filter.field] ??= {});
    byOperator[filter.operator] = filterValues(filter);
  }
  if (Object.keys(filters).length > 0) dataRequest.filters = { [draft.datasource]: filters };
  return { dataRequest, metadata: { source: draft.source.trim() } };
}
