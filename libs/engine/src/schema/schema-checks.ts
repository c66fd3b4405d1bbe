/** The pure part of schema validation. */
import { ValidationText } from '../errors';
import { compareUtf8 } from '../canonical/encode';
import type { SchemaSnapshot, ValidationFailure } from '../models';
import type { Limits } from '../limits';
import { FieldIndex } from './snapshot';
import type { ValidationDatasource } from './validation-request';

/** Count limits: any breach means the report holds only these entries, and nothing is looked up. */
export function countFailures(datasources: readonly ValidationDatasource[], limits: Limits): ValidationFailure[] {
  const failures: ValidationFailure[] = [];
  if (datasources.length > limits.maxDatasources) {
    failures.push({ type: 'limit_exceeded', message: ValidationText.datasourceLimit });
  }
  for (const { configName, tables } of datasources) {
    if (tables.length > limits.maxTablesPerDatasource) {
      failures.push({ type: 'limit_exceeded', configName, message: ValidationText.tableLimit });
    }
    for (const { name: table, fields, filterFields } of tables) {
      if (fields.length > limits.maxFieldsPerTable) {
        failures.push({ type: 'limit_exceeded', configName, table, message: ValidationText.fieldLimit });
      }
      if (filterFields.length > limits.maxFieldsPerTable) {
        failures.push({ type: 'limit_exceeded', configName, table, message: ValidationText.filterLimit });
      }
    }
  }
  return failures;
}

/** Tables, fields and filter fields of one datasource against its snapshot. Names are case-sensitive. */
export function schemaFailures(datasource: ValidationDatasource, snapshot: SchemaSnapshot): ValidationFailure[] {
  const failures: ValidationFailure[] = [];
  const { configName } = datasource;
  const byName = new Map(snapshot.tables.map((t) => [t.name, t] as const));
  for (const { name: table, fields, filterFields } of datasource.tables) {
    const found = byName.get(table);
    if (!found) {
      failures.push({ type: 'table_not_found', configName, table, message: ValidationText.tableNotFound });
      continue;
    }
    const index = new FieldIndex(found.fields, found.columns);
    for (const field of fields) {
      if (field !== '*' && !index.matches(field)) {
        failures.push({ type: 'field_not_found', configName, table, field, message: ValidationText.fieldNotFound });
      }
    }
    for (const field of filterFields) {
      if (!index.matches(field)) {
        failures.push({ type: 'invalid_filter', configName, table, field, message: ValidationText.invalidFilter });
      }
    }
  }
  return failures;
}

export function datasourceNotFound(configName: string): ValidationFailure {
  return { type: 'datasource_not_found', configName, message: ValidationText.datasourceNotFound };
}

/** Sorted by (configName, table, type, field); an absent part sorts first. */
export function sortFailures(failures: ValidationFailure[]): ValidationFailure[] {
  const key = (f: ValidationFailure): string[] => [f.configName ?? '', f.table ?? '', f.type, f.field ?? ''];
  return failures.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < ka.length; i++) {
      const order = compareUtf8(ka[i], kb[i]);
      if (order !== 0) return order;
    }
    return 0;
  });
}
