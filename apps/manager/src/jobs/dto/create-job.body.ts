import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

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
}

/** The documented shape of `POST /v1/fetcher`; the route decodes the raw body itself. */
export class CreateJobBody {
  @ApiProperty({ type: DataRequestBody })
  dataRequest!: DataRequestBody;

  @ApiProperty({ type: 'object', additionalProperties: true, example: { source: 'reporter' }, description: '`source` (required) names the owning product' })
  metadata!: Record<string, unknown>;
}
