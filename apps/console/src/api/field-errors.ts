import { ApiError } from './client';

/**
 * The API names a field problem by its JSON name in the shape pass (`configName`) and by the stored
 * name in the domain pass (`config_name`), docs/api.md "Error bodies". The form's field for each.
 */
const FORM_FIELD: Readonly<Record<string, string>> = {
  config_name: 'configName',
  database_name: 'databaseName',
  username: 'userName',
  user_name: 'userName',
  'ssl.mode': 'sslMode',
  'ssl.ca': 'sslCa',
  'ssl.cert': 'sslCa',
  'ssl.key': 'sslCa',
  ssl: 'sslMode',
};

export interface FieldErrors {
  /** form field → message */
  readonly fields: Record<string, string>;
  /** What cannot be tied to one field (a clash, a refused host, a missing product...). */
  readonly general?: string;
}

export function fieldErrorsOf(error: unknown, describe: (e: unknown) => string): FieldErrors {
  if (!(error instanceof ApiError)) return { fields: {}, general: describe(error) };
  const body = error.body;
  const fields: Record<string, string> = {};
  for (const [name, message] of Object.entries(body.fields ?? {})) fields[FORM_FIELD[name] ?? name] = message;
  if (body.field && !body.fields) fields[FORM_FIELD[body.field] ?? body.field] = 'wrong type';
  // The product header's own error and clashes name no body field.
  if (body.code === 'FET-0403') fields.product = body.message ?? 'invalid product name';
  else if (body.code === 'FET-1002') fields.configName = body.message ?? 'this name is taken';
  else if (body.code === 'FET-0414') fields.host = body.message ?? 'this host is not allowed';
  const tied = Object.keys(fields).length > 0;
  return tied ? { fields, general: `${body.title ?? 'Invalid request'}: see the marked fields.` } : { fields, general: describe(error) };
}
