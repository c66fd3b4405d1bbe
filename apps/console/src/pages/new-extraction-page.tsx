import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, ApiError, describeError } from '../api/client';
import type { Schema } from '../api/types';
import { useAllConnections } from '../api/use-connections';
import { ALL_OPERATORS, arityOf, type ExtractionDraft, type FilterDraft, inputFor, jobRequestOf, mappedFieldsOf, type Operator, OPERATOR_LABEL, operatorsFor, type ValueInput } from '../extraction/request-builder';
import { navigate } from '../route';
import { columnsOf } from './schema-page';

type Check = { state: 'idle' } | { state: 'running' } | { state: 'ok'; message: string } | { state: 'problems'; lines: string[] };

function problemLines(error: unknown): string[] {
  if (error instanceof ApiError && error.body.errors) {
    return error.body.errors.map((p) => p.message ?? [p.type?.replace(/_/g, ' ').toLowerCase(), [p.dataSourceId, p.table, p.field].filter(Boolean).join('.')].join(': '));
  }
  return [describeError(error)];
}

export function NewExtractionPage({ params }: { params: URLSearchParams }) {
  const { connections, error: listError } = useAllConnections();
  const [connectionId, setConnectionId] = useState(params.get('id') ?? '');
  const connection = connections?.find((c) => c.id === connectionId);
  const [schema, setSchema] = useState<Schema | undefined>();
  const [schemaError, setSchemaError] = useState<string | undefined>();
  const [source, setSource] = useState('');
  const [tables, setTables] = useState<Record<string, string[]>>({});
  const [filters, setFilters] = useState<FilterDraft[]>([]);
  const [check, setCheck] = useState<Check>({ state: 'idle' });
  const [submitError, setSubmitError] = useState<string[] | undefined>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    setSchema(undefined);
    setSchemaError(undefined);
    setTables({});
    setFilters([]);
    setCheck({ state: 'idle' });
    if (!connectionId) return;
    api<Schema>(`/v1/management/connections/${connectionId}/schema`).then(setSchema, (e: unknown) => setSchemaError(describeError(e)));
  }, [connectionId]);
  useEffect(() => {
    if (connection?.productName) setSource(connection.productName);
  }, [connection]);

  const draft: ExtractionDraft = { datasource: connection?.configName ?? '', source, tables, filters };
  const request = useMemo(() => jobRequestOf(draft), [draft.datasource, source, tables, filters]);
  const chosen = Object.keys(tables);
  const kindOf = (table: string, field: string): string => {
    const t = schema?.tables.find((x) => x.name === table);
    return (t && columnsOf(t).find((c) => c.name === field)?.kind) || '';
  };

  const toggleTable = (name: string, on: boolean) => {
    const next = { ...tables };
    if (on) next[name] = [];
    else delete next[name];
    setTables(next);
    if (!on) setFilters(filters.filter((f) => f.table !== name));
    setCheck({ state: 'idle' });
  };
  const toggleField = (table: string, field: string, on: boolean) => {
    const current = tables[table] ?? [];
    setTables({ ...tables, [table]: on ? [...current, field] : current.filter((f) => f !== field) });
    setCheck({ state: 'idle' });
  };
  const updateFilter = (index: number, change: Partial<FilterDraft>) => {
    setFilters(filters.map((f, i) => (i === index ? { ...f, ...change } : f)));
  };

  const validate = async () => {
    setCheck({ state: 'running' });
    try {
      const answer = await api<{ message: string }>('/v1/management/connections/validate-schema', { method: 'POST', body: { mappedFields: mappedFieldsOf(draft) } });
      setCheck({ state: 'ok', message: answer.message });
    } catch (e) {
      setCheck({ state: 'problems', lines: problemLines(e) });
    }
  };
  const submit = async () => {
    setBusy(true);
    setSubmitError(undefined);
    try {
      const answer = await api<{ jobId: string }>('/v1/fetcher', { method: 'POST', body: request });
      navigate('jobs', { job: answer.jobId });
    } catch (e) {
      setSubmitError(problemLines(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="extract-title">
      <h1 id="extract-title">New extraction</h1>
      {listError && (
        <p role="alert" class="error">
          {listError}
        </p>
      )}
      <div class="filters">
        <div class="field">
          <label for="extract-connection">Connection</label>
          <select id="extract-connection" value={connectionId} onChange={(e) => setConnectionId(e.currentTarget.value)}>
            <option value="">Choose a connection</option>
            {connections?.map((c) => (
              <option key={c.id} value={c.id}>
                {c.configName} ({c.type})
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="extract-source">Product (metadata.source)</label>
          <input id="extract-source" value={source} onInput={(e) => setSource(e.currentTarget.value)} />
        </div>
      </div>
      {schemaError && (
        <p role="alert" class="error">
          {schemaError}
        </p>
      )}
      {connectionId && !schema && !schemaError && <p role="status">Reading the live schema…</p>}
      {schema && (
        <fieldset class="card">
          <legend>Tables and fields</legend>
          <p class="hint">Pick tables; with no field ticked, every field is extracted.</p>
          <div class="picker">
            {schema.tables.map((t) => {
              const on = t.name in tables;
              const tableId = `tbl-${t.name}`;
              return (
                <div key={t.name} class="pick-table">
                  <input type="checkbox" id={tableId} checked={on} onChange={(e) => toggleTable(t.name, e.currentTarget.checked)} />
                  <label for={tableId}>{t.name}</label>
                  {on && (
                    <fieldset class="pick-fields">
                      <legend class="visually-hidden">Fields of {t.name}</legend>
                      {columnsOf(t).map((c) => {
                        const fieldId = `fld-${t.name}-${c.name}`;
                        return (
                          <span key={c.name} class="pick-field">
                            <input type="checkbox" id={fieldId} checked={tables[t.name]?.includes(c.name) ?? false} onChange={(e) => toggleField(t.name, c.name, e.currentTarget.checked)} />
                            <label for={fieldId}>
                              {c.name}
                              {c.kind && <span class="hint"> {c.kind}</span>}
                            </label>
                          </span>
                        );
                      })}
                    </fieldset>
                  )}
                </div>
              );
            })}
          </div>
        </fieldset>
      )}
      {chosen.length > 0 && schema && (
        <fieldset class="card">
          <legend>Filters</legend>
          {filters.map((f, index) => (
            <FilterRow key={index} index={index} filter={f} schema={schema} tables={chosen} kindOf={kindOf} onChange={(change) => updateFilter(index, change)} onRemove={() => setFilters(filters.filter((_, i) => i !== index))} />
          ))}
          <button type="button" class="secondary" onClick={() => setFilters([...filters, { table: chosen[0] ?? '', field: '', kind: '', operator: 'eq', values: [''] }])}>
            Add filter
          </button>
        </fieldset>
      )}
      {chosen.length > 0 && (
        <div class="card">
          <h2 id="request-title">Request</h2>
          <p class="hint">Exactly what will be sent to POST /v1/fetcher:</p>
          <pre class="json" aria-labelledby="request-title" tabIndex={0} data-testid="job-request">
            {JSON.stringify(request, null, 2)}
          </pre>
          <div class="buttons">
            <button type="button" class="secondary" onClick={() => void validate()} disabled={check.state === 'running'}>
              Validate
            </button>
            <button type="button" onClick={() => void submit()} disabled={busy || source.trim() === ''}>
              Start extraction
            </button>
          </div>
          <div role="status" aria-live="polite">
            {check.state === 'running' && <p>Checking tables and fields…</p>}
            {check.state === 'ok' && <p class="ok">{check.message}</p>}
            {check.state === 'problems' && (
              <ul class="error">
                {check.lines.map((l) => (
                  <li key={l}>{l}</li>
                ))}
              </ul>
            )}
          </div>
          {submitError && (
            <div role="alert" class="error">
              <p>The job was not created:</p>
              <ul>
                {submitError.map((l) => (
                  <li key={l}>{l}</li>
                ))}
              </ul>
            </div>
          )}
        </div>
      )}
    </section>
  );
}

function FilterRow(props: {
  index: number;
  filter: FilterDraft;
  schema: Schema;
  tables: readonly string[];
  kindOf: (table: string, field: string) => string;
  onChange: (change: Partial<FilterDraft>) => void;
  onRemove: () => void;
}) {
  const { index, filter, schema, tables, kindOf, onChange, onRemove } = props;
  const table = schema.tables.find((t) => t.name === filter.table);
  const operators = filter.field ? operatorsFor(filter.kind) : ALL_OPERATORS;
  const input = inputFor(filter.kind);
  const arity = arityOf(filter.operator);
  const id = (part: string) => `flt-${index}-${part}`;
  const valueInput = (position: number, label: string) =>
    input === 'boolean' ? (
      <div class="field">
        <label for={id(`v${position}`)}>{label}</label>
        <select id={id(`v${position}`)} value={filter.values[position] ?? ''} onChange={(e) => onChange({ values: replaceAt(filter.values, position, e.currentTarget.value) })}>
          <option value="">Choose</option>
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      </div>
    ) : (
      <div class="field">
        <label for={id(`v${position}`)}>{label}</label>
        <input
          id={id(`v${position}`)}
          {...inputAttributes(arity === 'list' ? 'text' : input)}
          value={filter.values[position] ?? ''}
          onInput={(e) => onChange({ values: replaceAt(filter.values, position, e.currentTarget.value) })}
        />
      </div>
    );
  return (
    <fieldset class="filter-row">
      <legend>Filter {index + 1}</legend>
      <div class="field">
        <label for={id('table')}>Table</label>
        <select id={id('table')} value={filter.table} onChange={(e) => onChange({ table: e.currentTarget.value, field: '', kind: '' })}>
          {tables.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for={id('field')}>Field</label>
        <select
          id={id('field')}
          value={filter.field}
          onChange={(e) => {
            const field = e.currentTarget.value;
            const kind = kindOf(filter.table, field);
            const allowed = operatorsFor(kind);
            onChange({ field, kind, operator: allowed.includes(filter.operator) ? filter.operator : (allowed[0] ?? 'eq'), values: [''] });
          }}
        >
          <option value="">Choose a field</option>
          {table &&
            columnsOf(table).map((c) => (
              <option key={c.name} value={c.name} disabled={operatorsFor(c.kind).length === 0}>
                {c.name}
                {c.kind ? ` (${c.kind})` : ''}
              </option>
            ))}
        </select>
      </div>
      <div class="field">
        <label for={id('op')}>Operator</label>
        <select id={id('op')} value={filter.operator} onChange={(e) => onChange({ operator: e.currentTarget.value as Operator, values: [''] })}>
          {operators.map((o) => (
            <option key={o} value={o}>
              {OPERATOR_LABEL[o]}
            </option>
          ))}
        </select>
      </div>
      {arity === 1 && valueInput(0, 'Value')}
      {arity === 2 && (
        <>
          {valueInput(0, 'From')}
          {valueInput(1, 'To')}
        </>
      )}
      {arity === 'list' && valueInput(0, 'Values, comma-separated')}
      <button type="button" class="danger" onClick={onRemove} aria-label={`Remove filter ${index + 1}`}>
        Remove
      </button>
    </fieldset>
  );
}

/** The input's type, and a step so that decimals and seconds can be typed. */
function inputAttributes(input: ValueInput): Record<string, string> {
  if (input === 'number') return { type: 'number', step: 'any' };
  if (input === 'datetime-local' || input === 'time') return { type: input, step: '1' };
  return { type: input === 'boolean' ? 'text' : input };
}

function replaceAt(values: readonly string[], position: number, value: string): string[] {
  const next = [...values];
  while (next.length <= position) next.push('');
  next[position] = value;
  return next;
}
