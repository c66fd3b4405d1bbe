import { CONNECT_REASONS } from '@fetcher/engine';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PARSE_REASONS } from '../errors/catalogue';

/** E1 (and E8): a string FET code. */
export class ErrorBody {
  @ApiProperty({ example: 'FET-1001' })
  code!: string;
  @ApiProperty({ example: 'Entity Not Found' })
  title!: string;
  @ApiProperty()
  message!: string;
  @ApiPropertyOptional({
    enum: [...PARSE_REASONS],
    description: 'FET-0001 "unable to parse request body" only: which parse failure it was',
  })
  reason?: string;
  @ApiPropertyOptional({ example: 'port', description: 'With reason wrong_type: the body field of the wrong JSON type' })
  field?: string;
}

/** E2: field-level validation. */
export class FieldErrorBody {
  @ApiPropertyOptional({ example: 'connection' })
  entityType?: string;
  @ApiProperty({ example: 'Missing Fields in Request' })
  title!: string;
  @ApiProperty({ example: 'FET-0402' })
  code!: string;
  @ApiProperty()
  message!: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  fields!: Record<string, string>;
}

/** E3: the numeric dialect of /test and /schema. */
export class NumericErrorBody {
  @ApiProperty({ example: 429 })
  code!: number;
  @ApiProperty({ example: 'Rate Limit Exceeded' })
  title!: string;
  @ApiProperty()
  message!: string;
  @ApiPropertyOptional({
    enum: CONNECT_REASONS,
    description: 'Database Connection Error only, when the class of failure is known (the driver\'s text is never sent)',
  })
  reason?: string;
}

export class SchemaProblem {
  @ApiProperty({ enum: ['DATA_SOURCE_NOT_FOUND', 'DATA_SOURCE_DOWN', 'TABLE_NOT_FOUND', 'FIELD_NOT_FOUND'] })
  type!: string;
  @ApiProperty()
  dataSourceId!: string;
  @ApiPropertyOptional()
  table?: string;
  @ApiPropertyOptional()
  field?: string;
  @ApiPropertyOptional({ enum: ['filters'], description: 'Job creation only: the missing field is named by a filter (not selected in mappedFields)' })
  in?: string;
}

/** E7: validate-schema found problems (422); job creation answers the same shape with 400 and a message naming them. */
export class SchemaValidationErrorBody {
  @ApiProperty({ example: 'Schema validation failed' })
  title!: string;
  @ApiProperty({ example: 'FET-1060' })
  code!: string;
  @ApiProperty()
  message!: string;
  @ApiProperty({ type: [SchemaProblem] })
  errors!: SchemaProblem[];
}

export class FilterProblemEntry {
  @ApiProperty({ description: 'The datasource (config name) of the filter, as sent' })
  dataSourceId!: string;
  @ApiPropertyOptional({ description: 'The table key, as sent' })
  table?: string;
  @ApiPropertyOptional({ description: 'The filtered field, for a problem below the table level' })
  field?: string;
  @ApiPropertyOptional({ description: 'The operator, for an operator problem' })
  operator?: string;
  @ApiProperty({ example: "filter on 'pg-main.transactions.amount': operator 'between' needs exactly 2 values, got 1" })
  message!: string;
}

/** FET-0415: job filters that cannot be applied as sent. */
export class InvalidFilterErrorBody {
  @ApiProperty({ example: 'Invalid Filter' })
  title!: string;
  @ApiProperty({ example: 'FET-0415' })
  code!: string;
  @ApiProperty({ description: "Every problem's message, joined with '; '" })
  message!: string;
  @ApiProperty({ type: [FilterProblemEntry] })
  errors!: FilterProblemEntry[];
}

export class IncrementalProblemEntry {
  @ApiPropertyOptional({ description: 'The datasource (config name), as sent; absent when dataRequest.incremental itself is malformed' })
  dataSourceId?: string;
  @ApiPropertyOptional({ description: 'The table key' })
  table?: string;
  @ApiPropertyOptional({ description: 'The cursor or tie-breaker field the problem is about' })
  field?: string;
  @ApiProperty({ description: 'The rule that refused the request (a fixed text)', example: 'incremental cursor field is nullable and nulls "first" was not chosen' })
  reason!: string;
  @ApiProperty({ example: 'incremental cursor field is nullable and nulls "first" was not chosen: pg-main.transactions.updated_at' })
  message!: string;
}

/** FET-0418: an incremental request that cannot run as sent. */
export class InvalidIncrementalErrorBody {
  @ApiProperty({ example: 'Invalid Incremental Request' })
  title!: string;
  @ApiProperty({ example: 'FET-0418' })
  code!: string;
  @ApiProperty({ description: 'The reason and where it points' })
  message!: string;
  @ApiProperty({ type: [IncrementalProblemEntry] })
  errors!: IncrementalProblemEntry[];
}
