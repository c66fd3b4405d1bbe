import { ApiProperty } from '@nestjs/swagger';
import { Errors } from '../../errors/catalogue';
import { Shape } from '../connection-rules';

export class ValidateSchemaRequest {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
    example: { 'pg-main': { accounts: ['id', 'email'] } },
    description: 'config name -> table -> fields',
  })
  mappedFields!: Record<string, Record<string, string[]>>;
}

/** config name -> table -> fields, in request order. */
export type MappedFieldsInput = ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>;

export const VALIDATION_LIMITS = Object.freeze({ datasources: 10, tables: 20, fields: 50 });

/**
 * Parse stage and request checks of validate-schema, in the contract's order: missing
 * `mappedFields`, empty, too many datasources, then per datasource a blank name and too many
 * tables, per table a blank name, too many fields and a blank field.
 */
export function readValidateSchema(body: Record<string, unknown>): MappedFieldsInput {
  const raw = body.mappedFields;
  if (raw === undefined || raw === null) throw Errors.fieldProblems([Shape.required('mappedFields')]);
  const mapped = new Map<string, Map<string, string[]>>();
  if (typeof raw !== 'object' || Array.isArray(raw)) throw Errors.parseFailed('wrong_type', 'mappedFields');
  for (const [ds, tables] of Object.entries(raw as Record<string, unknown>)) {
    if (tables === null || typeof tables !== 'object' || Array.isArray(tables)) throw Errors.parseFailed('wrong_type', `mappedFields.${ds}`);
    const byTable = new Map<string, string[]>();
    for (const [table, fields] of Object.entries(tables as Record<string, unknown>)) {
      if (fields === null) {
        byTable.set(table, []);
        continue;
      }
      if (!Array.isArray(fields) || fields.some((f) => typeof f !== 'string')) throw Errors.parseFailed('wrong_type', `mappedFields.${ds}.${table}`);
      byTable.set(table, fields as string[]);
    }
    mapped.set(ds, byTable);
  }

  if (mapped.size === 0) throw Errors.invalidDataRequest('mappedFields cannot be empty');
  if (mapped.size > VALIDATION_LIMITS.datasources) {
    throw Errors.validationLimitExceeded(`maximum ${VALIDATION_LIMITS.datasources} datasources allowed per validation request`);
  }
  const blank = (s: string) => s.trim() === '';
  // No database names anything with U+0000; left in, it reaches drivers and the schema cache's keys.
  const nul = (s: string) => s.includes('\u0000');
  for (const [ds, tables] of mapped) {
    if (blank(ds)) throw Errors.invalidDataRequest('config name cannot be empty or whitespace-only');
    if (nul(ds)) throw Errors.invalidDataRequest('config name must not contain NUL characters');
    if (tables.size > VALIDATION_LIMITS.tables) {
      throw Errors.validationLimitExceeded(`maximum ${VALIDATION_LIMITS.tables} tables allowed per datasource, got ${tables.size} for '${ds}'`);
    }
    for (const [table, fields] of tables) {
      if (blank(table)) throw Errors.invalidDataRequest(`table name cannot be empty or whitespace-only in datasource '${ds}'`);
      if (nul(table)) throw Errors.invalidDataRequest(`table name must not contain NUL characters in datasource '${ds}'`);
      if (fields.length > VALIDATION_LIMITS.fields) {
        throw Errors.validationLimitExceeded(`maximum ${VALIDATION_LIMITS.fields} fields allowed per table, got ${fields.length} for '${ds}.${table}'`);
      }
      if (fields.some(blank)) throw Errors.invalidDataRequest(`field name cannot be empty or whitespace-only in '${ds}.${table}'`);
      if (fields.some(nul)) throw Errors.invalidDataRequest(`field name must not contain NUL characters in '${ds}.${table}'`);
    }
  }
  return mapped;
}
