/** Reading a schema validation request into a checked, normalised copy. */
import { EngineError, ErrorText } from '../errors';
import type { SchemaValidationRequest, SchemaValidationTable } from '../models';
import { isPlainObject, isStringArray } from '../support/guards';

export interface ValidationDatasource {
  readonly configName: string;
  readonly tables: readonly Required<SchemaValidationTable>[];
}

export function readValidationRequest(value: unknown): ValidationDatasource[] {
  if (!isPlainObject(value) || !Array.isArray(value.datasources)) invalid();
  const datasources = (value as unknown as SchemaValidationRequest).datasources as unknown[];
  if (datasources.length === 0) throw new EngineError('validation', ErrorText.noDatasources);
  return datasources.map(readDatasource);
}

/** The first step of schema validation, also for the planner's requests: validation "schema validation request contains a blank name". */
export function checkBlankNames(datasources: readonly ValidationDatasource[]): void {
  const blank = (name: string): boolean => name.trim() === '';
  for (const ds of datasources) {
    if (blank(ds.configName)) throw blankName();
    for (const table of ds.tables) {
      if (blank(table.name) || table.fields.some(blank) || table.filterFields.some(blank)) throw blankName();
    }
  }
}

function readDatasource(value: unknown): ValidationDatasource {
  if (!isPlainObject(value) || typeof value.configName !== 'string' || !Array.isArray(value.tables)) invalid();
  const ds = value as { configName: string; tables: unknown[] };
  return { configName: ds.configName, tables: ds.tables.map(readTable) };
}

function readTable(value: unknown): Required<SchemaValidationTable> {
  if (!isPlainObject(value) || typeof value.name !== 'string' || !isStringArray(value.fields)) invalid();
  const table = value as { name: string; fields: string[]; filterFields?: unknown };
  const filterFields = table.filterFields ?? [];
  if (!isStringArray(filterFields)) invalid();
  return { name: table.name, fields: [...table.fields], filterFields: [...filterFields] };
}

function invalid(): never {
  throw new EngineError('validation', ErrorText.invalidSchemaRequest);
}

function blankName(): EngineError {
  return new EngineError('validation', ErrorText.blankName);
}
