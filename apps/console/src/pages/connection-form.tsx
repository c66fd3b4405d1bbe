import { useState } from 'preact/hooks';
import { api, describeError } from '../api/client';
import { fieldErrorsOf, type FieldErrors } from '../api/field-errors';
import { type Connection, CONNECTION_TYPES, type ConnectionType } from '../api/types';

const DEFAULT_PORT: Readonly<Record<ConnectionType, string>> = { POSTGRESQL: '5432', MYSQL: '3306', SQL_SERVER: '1433', ORACLE: '1521', MONGODB: '27017' };

interface Draft {
  product: string;
  configName: string;
  type: ConnectionType;
  host: string;
  port: string;
  databaseName: string;
  schema: string;
  userName: string;
  password: string;
  sslMode: string;
  sslCa: string;
}

function draftOf(existing: Connection | undefined): Draft {
  return {
    product: existing?.productName ?? '',
    configName: existing?.configName ?? '',
    type: existing?.type ?? 'POSTGRESQL',
    host: existing?.host ?? '',
    port: existing ? String(existing.port) : DEFAULT_PORT.POSTGRESQL,
    databaseName: existing?.databaseName ?? '',
    schema: existing?.schema ?? '',
    userName: existing?.userName ?? '',
    password: '',
    sslMode: existing?.ssl?.mode ?? '',
    sslCa: '',
  };
}

/**
 * The request body: the port goes as typed when it is not a number, so the API's own validation
 * (not the form's) names the problem; a PATCH sends only what the operator filled in.
 */
function bodyOf(draft: Draft, editing: boolean): Record<string, unknown> {
  const port = /^\d+$/.test(draft.port.trim()) ? Number(draft.port.trim()) : draft.port.trim() === '' ? 0 : draft.port;
  const body: Record<string, unknown> = {
    configName: draft.configName.trim(),
    type: draft.type,
    host: draft.host.trim(),
    port,
    databaseName: draft.databaseName.trim(),
    userName: draft.userName.trim(),
  };
  if (!editing || draft.password !== '') body.password = draft.password;
  if (draft.schema.trim() !== '') body.schema = draft.schema.trim();
  if (draft.sslMode !== '' || draft.sslCa !== '') body.ssl = { mode: draft.sslMode, ca: draft.sslCa };
  return body;
}

export function ConnectionForm({ existing, onSaved, onCancel }: { existing?: Connection; onSaved: (c: Connection) => void; onCancel: () => void }) {
  const editing = existing !== undefined;
  const [draft, setDraft] = useState<Draft>(() => draftOf(existing));
  const [errors, setErrors] = useState<FieldErrors>({ fields: {} });
  const [busy, setBusy] = useState(false);

  const save = async () => {
    setBusy(true);
    try {
      const saved = editing
        ? await api<Connection>(`/v1/management/connections/${existing.id}`, { method: 'PATCH', body: bodyOf(draft, true) })
        : await api<Connection>('/v1/management/connections', { method: 'POST', body: bodyOf(draft, false), headers: { 'X-Product-Name': draft.product.trim() } });
      setErrors({ fields: {} });
      onSaved(saved);
    } catch (e) {
      const found = fieldErrorsOf(e, describeError);
      setErrors(found);
      const first = Object.keys(found.fields)[0];
      if (first) document.getElementById(`conn-${first}`)?.focus();
    } finally {
      setBusy(false);
    }
  };

  const text = (name: keyof Draft, label: string, options: { type?: 'text' | 'password'; hint?: string; disabled?: boolean; required?: boolean } = {}) => {
    const id = `conn-${name}`;
    const message = errors.fields[name];
    const described = [message ? `${id}-error` : '', options.hint ? `${id}-hint` : ''].filter(Boolean).join(' ');
    return (
      <div class={`field${message ? ' invalid' : ''}`}>
        <label for={id}>
          {label}
          {options.required && <span aria-hidden="true"> *</span>}
        </label>
        <input
          id={id}
          name={name}
          {...(options.type === 'password' ? { type: 'password' } : { type: 'text' })}
          value={draft[name]}
          disabled={options.disabled}
          autoComplete={options.type === 'password' ? 'new-password' : 'off'}
          aria-invalid={message ? true : undefined}
          aria-describedby={described || undefined}
          onInput={(e) => setDraft({ ...draft, [name]: e.currentTarget.value })}
        />
        {options.hint && (
          <small id={`${id}-hint`} class="hint">
            {options.hint}
          </small>
        )}
        {message && (
          <small id={`${id}-error`} class="field-error">
            {message}
          </small>
        )}
      </div>
    );
  };

  return (
    <form
      class="card form-grid"
      aria-labelledby="conn-form-title"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <h2 id="conn-form-title">{editing ? `Edit ${existing.configName}` : 'New connection'}</h2>
      {errors.general && (
        <p role="alert" class="error form-wide">
          {errors.general}
        </p>
      )}
      {text('product', 'Product', { disabled: editing, required: true, hint: 'The product whose jobs may use it (X-Product-Name).' })}
      {text('configName', 'Name', { required: true, hint: '3 to 100 letters, digits, _ or -. Jobs name the connection by it.' })}
      <div class={`field${errors.fields.type ? ' invalid' : ''}`}>
        <label for="conn-type">Type</label>
        <select
          id="conn-type"
          value={draft.type}
          aria-invalid={errors.fields.type ? true : undefined}
          aria-describedby={errors.fields.type ? 'conn-type-error' : undefined}
          onChange={(e) => {
            const type = e.currentTarget.value as ConnectionType;
            const portUntouched = draft.port === DEFAULT_PORT[draft.type];
            setDraft({ ...draft, type, port: portUntouched ? DEFAULT_PORT[type] : draft.port });
          }}
        >
          {CONNECTION_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        {errors.fields.type && (
          <small id="conn-type-error" class="field-error">
            {errors.fields.type}
          </small>
        )}
      </div>
      {text('host', 'Host', { required: true })}
      {text('port', 'Port', { required: true })}
      {text('databaseName', 'Database', { required: true })}
      {text('schema', 'Schema', { hint: 'Optional: the schema to discover (PostgreSQL, SQL Server, Oracle).' })}
      {text('userName', 'User', { required: true })}
      {text('password', 'Password', { type: 'password', hint: editing ? 'Leave empty to keep the stored one.' : 'Stored encrypted; never shown again.' })}
      {text('sslMode', 'SSL mode', { hint: 'Optional, e.g. require (PostgreSQL) or true (MySQL). Needs the CA.' })}
      <div class={`field form-wide${errors.fields.sslCa ? ' invalid' : ''}`}>
        <label for="conn-sslCa">SSL CA certificate (PEM)</label>
        <textarea
          id="conn-sslCa"
          rows={3}
          value={draft.sslCa}
          aria-invalid={errors.fields.sslCa ? true : undefined}
          aria-describedby={errors.fields.sslCa ? 'conn-sslCa-error' : undefined}
          onInput={(e) => setDraft({ ...draft, sslCa: e.currentTarget.value })}
        />
        {errors.fields.sslCa && (
          <small id="conn-sslCa-error" class="field-error">
            {errors.fields.sslCa}
          </small>
        )}
      </div>
      <div class="form-wide buttons">
        <button type="submit" disabled={busy}>
          {editing ? 'Save' : 'Create connection'}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
