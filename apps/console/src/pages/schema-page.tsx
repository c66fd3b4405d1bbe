import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, describeError } from '../api/client';
import type { Schema, SchemaTable } from '../api/types';
import { useAllConnections } from '../api/use-connections';
import { href, navigate } from '../route';

export function columnsOf(table: SchemaTable): readonly { name: string; kind: string; type: string }[] {
  return table.columns ?? table.fields.map((name) => ({ name, kind: '', type: '' }));
}

export function SchemaPage({ params }: { params: URLSearchParams }) {
  const id = params.get('id') ?? '';
  const { connections, error: listError } = useAllConnections();
  const [schema, setSchema] = useState<Schema | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [search, setSearch] = useState('');

  useEffect(() => {
    setSchema(undefined);
    setError(undefined);
    if (!id) return;
    api<Schema>(`/v1/management/connections/${id}/schema`).then(setSchema, (e: unknown) => setError(describeError(e)));
  }, [id]);

  const term = search.trim().toLowerCase();
  const tables = useMemo(() => {
    if (!schema) return [];
    if (!term) return schema.tables;
    return schema.tables.filter((t) => t.name.toLowerCase().includes(term) || t.fields.some((f) => f.toLowerCase().includes(term)));
  }, [schema, term]);

  return (
    <section aria-labelledby="schema-title">
      <h1 id="schema-title">Schema</h1>
      <div class="filters">
        <div class="field">
          <label for="schema-connection">Connection</label>
          <select id="schema-connection" value={id} onChange={(e) => navigate('schema', e.currentTarget.value ? { id: e.currentTarget.value } : {})}>
            <option value="">Choose a connection</option>
            {connections?.map((c) => (
              <option key={c.id} value={c.id}>
                {c.configName} ({c.type})
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="schema-search">Search tables and columns</label>
          <input id="schema-search" type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        </div>
      </div>
      {(listError ?? error) && (
        <p role="alert" class="error">
          {listError ?? error}
        </p>
      )}
      {id && !schema && !error && <p role="status">Reading the live schema…</p>}
      {schema && (
        <>
          <p role="status">
            {schema.configName}: database {schema.databaseName}, {tables.length} of {schema.tables.length} tables shown.{' '}
            <a href={href('new-extraction', { id })}>Extract from it</a>
          </p>
          <div class="tables">
            {tables.map((t) => (
              <details key={t.name} class="card" open={tables.length <= 5}>
                <summary>
                  <strong>{t.name}</strong> <span class="hint">{t.fields.length} columns</span>
                </summary>
                <table class="columns">
                  <caption class="visually-hidden">Columns of {t.name}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Column</th>
                      <th scope="col">Type</th>
                    </tr>
                  </thead>
                  <tbody>
                    {columnsOf(t).map((c) => (
                      <tr key={c.name} class={term && c.name.toLowerCase().includes(term) ? 'match' : undefined}>
                        <td>
                          <code>{c.name}</code>
                        </td>
                        <td>{c.type ? `${c.type} (${c.kind})` : <span class="hint">not reported</span>}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </details>
            ))}
          </div>
        </>
      )}
    </section>
  );
}
