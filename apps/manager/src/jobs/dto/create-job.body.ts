import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class CursorPositionBody {
  @ApiProperty({ description: "The cursor field's value (ISO UTC text for date-times, digit strings for integers); null only with nulls \"first\"", nullable: true, oneOf: [{ type: 'string' }, { type: 'number' }] })
  value!: string | number | null;
  @ApiProperty({ description: "The tie-breaker's value", oneOf: [{ type: 'string' }, { type: 'number' }] })
  key!: string | number;
}

export class IncrementalTableBody {
  @ApiProperty({ description: 'A column that grows with every write (an update time, a sequence): integer, decimal, float, date, date-time, UUID or binary-ordered text' })
  cursorField!: string;
  @ApiPropertyOptional({ description: "A unique, non-null column; defaults to the table's single-column primary key" })
  tieBreaker?: string;
  @ApiPropertyOptional({ type: CursorPositionBody, nullable: true, description: "The previous job's cursors entry for this table, verbatim; absent or null: from the start" })
  after?: CursorPositionBody | null;
  @ApiPropertyOptional({ description: 'At most this many rows of this table in this job; the next job continues where it stopped', minimum: 1 })
  limit?: number;
  @ApiPropertyOptional({ enum: ['first'], description: 'Required when the cursor column is nullable: rows with a NULL cursor are read first' })
  nulls?: 'first';
  @ApiPropertyOptional({
    oneOf: [{ type: 'number', minimum: 0 }, { type: 'string' }],
    description:
      'Re-read this far behind `after` for rows that commit late, in the cursor unit: a number for integer, decimal and float cursors, ' +
      'whole days for a date, seconds (fractions allowed) for a date-time. Rows inside the window may be extracted again; not allowed on text, UUID or ObjectId cursors',
    example: 300,
  })
  lag?: number | string;
}

export class DataRequestBody {
  @ApiProperty({
    description: 'datasource -> table (or schema.table) -> fields ("*" for all)',
    type: 'object',
    additionalProperties: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
    example: { 'pg-main': { transactions: ['id', 'amount'] } },
  })
  mappedFields!: Record<string, Record<string, string[]>>;

  @ApiPropertyOptional({
    description: 'datasource -> table -> field -> operator (eq gt gte lt lte between in nin ne like) -> values (always an array)',
    type: 'object',
    additionalProperties: true,
    example: { 'pg-main': { transactions: { status: { eq: ['completed'] } } } },
  })
  filters?: Record<string, Record<string, Record<string, Record<string, unknown[]>>>>;

  @ApiPropertyOptional({
    description:
      'Incremental extraction, keyed like mappedFields: datasource -> table -> {cursorField, tieBreaker?, after?, limit?, nulls?, lag?}. ' +
      'Only rows after `after` in (cursorField, tieBreaker) order are extracted; the completed job reports `cursors`, which the next ' +
      "request's `after` accepts verbatim. tieBreaker defaults to the table's single-column primary key. Refusals: 400 FET-0418",
    type: 'object',
    additionalProperties: { type: 'object', additionalProperties: { $ref: '#/components/schemas/IncrementalTableBody' } },
    example: { 'pg-main': { transactions: { cursorField: 'updated_at', after: { value: '2026-03-01T10:00:00.123456Z', key: '4711' }, limit: 10000 } } },
  })
  incremental?: Record<string, Record<string, IncrementalTableBody>>;
}

/** The documented shape of `POST /v1/fetcher`; the route decodes the raw body itself. */
export class CreateJobBody {
  @ApiProperty({ type: DataRequestBody })
  dataRequest!: DataRequestBody;

  @ApiProperty({ type: 'object', additionalProperties: true, example: { source: 'reporter' }, description: '`source` (required) names the owning product' })
  metadata!: Record<string, unknown>;
}
