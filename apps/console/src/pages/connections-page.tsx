import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError, describeError } from '../api/client';
import type { Connection, ConnectionPage, TestResult } from '../api/types';
import { href } from '../route';
import { ConnectionForm } from './connection-form';

const PAGE_SIZE = 20;

/** The outcome of the last test of each connection in this tab (the API keeps no test history). */
type Tested = { ok: true; latencyMs: number; at: Date } | { ok: false; message: string; at: Date } | { pending: true };

function deleteProblem(error: unknown, name: string): string {
  if (error instanceof ApiError && error.body.code === 'FET-1021') {
    return `${name} is used by a pending or processing job, so it cannot be deleted now. Wait for the job to finish, or cancel it on the Jobs page, then delete again.`;
  }
  if (error instanceof ApiError && error.status === 404) return `${name} is already gone, or is an internal datasource, which the API cannot change.`;
  return `Could not delete ${name}: ${describeError(error)}`;
}

export function ConnectionsPage() {
  const [page, setPage] = useState(1);
  const [list, setList] = useState<ConnectionPage | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const [editing, setEditing] = useState<Connection | 'new' | undefined>();
  const [tested, setTested] = useState<Record<string, Tested>>({});

  const load = useCallback(async () => {
    try {
      setList(await api<ConnectionPage>(`/v1/management/connections?page=${page}&limit=${PAGE_SIZE}`));
      setError(undefined);
    } catch (e) {
      setError(describeError(e));
    }
  }, [page]);
  useEffect(() => void load(), [load]);

  const test = async (c: Connection) => {
    setTested((t) => ({ ...t, [c.id]: { pending: true } }));
    try {
      const result = await api<TestResult>(`/v1/management/connections/${c.id}/test`, { method: 'POST' });
      setTested((t) => ({ ...t, [c.id]: { ok: true, latencyMs: result.latencyMs, at: new Date() } }));
    } catch (e) {
      setTested((t) => ({ ...t, [c.id]: { ok: false, message: describeError(e), at: new Date() } }));
    }
  };

  const remove = async (c: Connection) => {
    if (!window.confirm(`Delete the connection ${c.configName}? Jobs that name it will no longer run.`)) return;
    try {
      await api<undefined>(`/v1/management/connections/${c.id}`, { method: 'DELETE' });
      setNotice(`${c.configName} deleted.`);
      await load();
    } catch (e) {
      setNotice(deleteProblem(e, c.configName));
    }
  };

  const pages = list ? Math.max(1, Math.ceil(list.total / PAGE_SIZE)) : 1;
  return (
    <section aria-labelledby="connections-title">
      <div class="heading">
        <h1 id="connections-title">Connections</h1>
        <button type="button" onClick={() => setEditing('new')} disabled={editing !== undefined}>
          New connection
        </button>
      </div>
      {editing !== undefined && (
        <ConnectionForm
          {...(editing === 'new' ? {} : { existing: editing })}
          onCancel={() => setEditing(undefined)}
          onSaved={(saved) => {
            setEditing(undefined);
            setNotice(`${saved.configName} saved.`);
            void load();
          }}
        />
      )}
      <p role="status" class="notice">
        {notice}
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {list && list.items.length === 0 && <p>No connections yet.</p>}
      {list && list.items.length > 0 && (
        <div class="table-wrap" role="region" aria-label="Connection list" tabIndex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Host</th>
                <th scope="col">Database</th>
                <th scope="col">Product</th>
                <th scope="col">Last test</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((c) => (
                <tr key={c.id} data-connection={c.configName}>
                  <td>{c.configName}</td>
                  <td>{c.type}</td>
                  <td>
                    {c.host}:{c.port}
                  </td>
                  <td>
                    {c.databaseName}
                    {c.schema ? ` (${c.schema})` : ''}
                  </td>
                  <td>{c.productName ?? <span class="hint">internal</span>}</td>
                  <td aria-live="polite">
                    <TestOutcome tested={tested[c.id]} />
                  </td>
                  <td class="actions">
                    <button type="button" onClick={() => void test(c)} aria-label={`Test ${c.configName}`}>
                      Test
                    </button>
                    <a class="button secondary" href={href('schema', { id: c.id })} aria-label={`Schema of ${c.configName}`}>
                      Schema
                    </a>
                    {c.productName !== undefined && (
                      <>
                        <button type="button" class="secondary" onClick={() => setEditing(c)} aria-label={`Edit ${c.configName}`}>
                          Edit
                        </button>
                        <button type="button" class="danger" onClick={() => void remove(c)} aria-label={`Delete ${c.configName}`}>
                          Delete
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav class="pager" aria-label="Connection pages">
        <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
          Previous page
        </button>
        <span>
          Page {page} of {pages}
        </span>
        <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
          Next page
        </button>
      </nav>
    </section>
  );
}

function TestOutcome({ tested }: { tested: Tested | undefined }) {
  if (!tested) return <span class="hint">not tested</span>;
  if ('pending' in tested) return <span>testing…</span>;
  if (tested.ok) return <span class="ok">OK in {tested.latencyMs} ms</span>;
  return <span class="error">{tested.message}</span>;
}
