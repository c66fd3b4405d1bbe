import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { StoredConnection } from '../../ports/connection-repository.port';
import type { InternalDatasource } from '../../ports/internal-datasources.port';
import { CONNECTION_TYPES } from '../connection-rules';

export class SslResponse {
  @ApiPropertyOptional({ description: 'Omitted when empty' })
  mode?: string;
}

/** A connection as clients see it. The password, key version and SSL material are never returned. */
export class ConnectionResponse {
  @ApiProperty({ format: 'uuid', description: 'UUIDv7 for stored connections, UUIDv5 for internal datasources' })
  id!: string;
  @ApiPropertyOptional({ description: 'Omitted when empty' })
  productName?: string;
  @ApiProperty()
  configName!: string;
  @ApiProperty({ enum: CONNECTION_TYPES })
  type!: string;
  @ApiProperty()
  host!: string;
  @ApiProperty()
  port!: number;
  @ApiProperty()
  databaseName!: string;
  @ApiPropertyOptional({ description: 'Omitted when unset; may be ""' })
  schema?: string;
  @ApiProperty()
  userName!: string;
  @ApiPropertyOptional({ type: SslResponse })
  ssl?: SslResponse;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  metadata?: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' })
  createdAt!: string;
  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

export class ConnectionListResponse {
  @ApiProperty({ type: [ConnectionResponse] })
  items!: ConnectionResponse[];
  @ApiProperty()
  page!: number;
  @ApiProperty()
  limit!: number;
  @ApiProperty({ description: 'Page 1 also counts the internal datasources listed on it' })
  total!: number;
}

/** `echoEmptyMetadata`: PATCH echoes `metadata: {}` (quirk kept); every other route omits it. */
export function connectionResponse(c: StoredConnection, options: { echoEmptyMetadata?: boolean } = {}): ConnectionResponse {
  const out: Record<string, unknown> = { id: c.id };
  if (c.productName) out.productName = c.productName;
  Object.assign(out, { configName: c.configName, type: c.type, host: c.host, port: c.port, databaseName: c.databaseName });
  if (c.schema !== undefined) out.schema = c.schema;
  out.userName = c.userName;
  if (c.ssl) out.ssl = c.ssl.mode ? { mode: c.ssl.mode } : {};
  if (c.metadata && (Object.keys(c.metadata).length > 0 || options.echoEmptyMetadata)) out.metadata = c.metadata;
  out.createdAt = c.createdAt.toISOString();
  out.updatedAt = c.updatedAt.toISOString();
  return out as unknown as ConnectionResponse;
}

/** The zero time the original service shows for records that were never stored. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

export function internalConnectionResponse(i: InternalDatasource): ConnectionResponse {
  const out: Record<string, unknown> = {
    id: i.id,
    configName: i.configName,
    type: i.type,
    host: i.host,
    port: i.port,
    databaseName: i.databaseName,
    userName: i.userName,
  };
  if (i.sslMode) out.ssl = { mode: i.sslMode };
  if (Object.keys(i.metadata).length > 0) out.metadata = { ...i.metadata };
  out.createdAt = ZERO_TIME;
  out.updatedAt = ZERO_TIME;
  return out as unknown as ConnectionResponse;
}
