/** Reading an ExtractionRequest into sorted, de-duplicated selections. */
import { EngineError, ErrorText } from '../errors';
import { compareUtf8 } from '../canonical/encode';
import { isPlainObject, isStringArray } from '../support/guards';

/** config -> table -> sorted unique fields; configs and tables in UTF-8 order. */
export type Selection = ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>;

export function readRequestObject(request: unknown): Record<string, unknown> {
  if (!isPlainObject(request)) throw invalidRequest();
  return request;
}

export function readMappedFields(mappedFields: unknown): Selection {
  if (!isPlainObject(mappedFields)) throw invalidRequest();
  const configs = Object.keys(mappedFields).sort(compareUtf8);
  if (configs.length === 0) throw new EngineError('validation', ErrorText.noMappedFields);
  const selection = new Map<string, Map<string, readonly string[]>>();
  for (const config of configs) {
    const tables = mappedFields[config];
    if (!isPlainObject(tables)) throw invalidRequest();
    const names = Object.keys(tables).sort(compareUtf8);
    if (names.length === 0) throw new EngineError('validation', ErrorText.noTables);
    const byTable = new Map<string, readonly string[]>();
    for (const table of names) {
      const fields = tables[table];
      if (!isStringArray(fields)) throw invalidRequest();
      if (fields.length === 0) throw new EngineError('validation', ErrorText.noFields);
      byTable.set(table, sortedUnique(fields));
    }
    selection.set(config, byTable);
  }
  return selection;
}

/** A deep copy of plain data; values that cannot be cloned (functions, symbols) are refused. */
export function copyMetadata(metadata: unknown): Record<string, unknown> | undefined {
  if (metadata === undefined || metadata === null) return undefined;
  if (!isPlainObject(metadata)) throw invalidRequest();
  try {
    return structuredClone(metadata);
  } catch (error) {
    throw new EngineError('validation', ErrorText.invalidRequest, error);
  }
}

export function sortedUnique(values: readonly string[]): string[] {
  return [...new Set(values)].sort(compareUtf8);
}

function invalidRequest(): EngineError {
  return new EngineError('validation', ErrorText.invalidRequest);
}
