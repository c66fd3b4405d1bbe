import { COLUMN_KINDS } from '@fetcher/engine';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CONNECTION_TYPES } from '../connection-rules';

export class SchemaColumnResponse {
  @ApiProperty({ example: 'created_at' })
  name!: string;
  @ApiProperty({ enum: COLUMN_KINDS, description: "The connector's classification of the column's type" })
  kind!: string;
  @ApiProperty({ example: 'timestamp with time zone', description: 'The type as the database names it' })
  type!: string;
}

export class SchemaTableResponse {
  @ApiProperty({ example: 'accounts' })
  name!: string;
  @ApiProperty({ type: [String], example: ['created_at', 'email', 'id'] })
  fields!: string[];
  @ApiPropertyOptional({ type: [SchemaColumnResponse], description: 'The columns with their types, in the order of `fields`, when the connector reports them (an addition)' })
  columns?: SchemaColumnResponse[];
}

export class ConnectionSchemaResponse {
  @ApiProperty({ format: 'uuid' })
  id!: string;
  @ApiProperty()
  configName!: string;
  @ApiProperty()
  databaseName!: string;
  @ApiProperty({ enum: CONNECTION_TYPES })
  type!: string;
  @ApiProperty({ type: [SchemaTableResponse], description: 'Sorted by name; fields sorted' })
  tables!: SchemaTableResponse[];
}

export class TestConnectionResponse {
  @ApiProperty({ example: 'success' })
  status!: string;
  @ApiProperty({ example: 'Connection successful' })
  message!: string;
  @ApiProperty({ example: 12, description: 'Connect and ping, whole milliseconds rounded up' })
  latencyMs!: number;
}

export class ValidateSchemaResponse {
  @ApiProperty({ example: 'success' })
  status!: string;
  @ApiProperty({ example: 'Schema validated successfully. All datasources, tables, and fields exist.' })
  message!: string;
}
