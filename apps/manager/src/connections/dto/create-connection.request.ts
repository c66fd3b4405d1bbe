import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Errors, type FieldProblem } from '../../errors/catalogue';
import { CONNECTION_TYPES, isHostShape, Shape } from '../connection-rules';
import { optionalInteger, optionalString } from './body-fields';
import { readMetadata, readSsl, type SslInput, SslRequest } from './ssl.request';

/** POST /v1/management/connections. Unknown fields are dropped. */
export class CreateConnectionRequest {
  @ApiProperty({ example: 'pg-main', description: '3-100 letters, digits, "_" or "-"; unique among live connections' })
  configName!: string;
  @ApiProperty({ enum: CONNECTION_TYPES, description: 'Case-sensitive' })
  type!: string;
  @ApiProperty({ example: 'db.example.com', description: 'A hostname or an IP literal' })
  host!: string;
  @ApiProperty({ example: 5432, minimum: 1, maximum: 65535 })
  port!: number;
  @ApiProperty({ example: 'app' })
  databaseName!: string;
  @ApiPropertyOptional({ description: 'Schema to discover (PostgreSQL, SQL Server, Oracle); stored only when non-empty' })
  schema?: string;
  @ApiProperty({ example: 'reader' })
  userName!: string;
  @ApiProperty({ description: 'Encrypted at rest; never returned. Required, but may be empty for a user without a password', format: 'password' })
  password!: string;
  @ApiPropertyOptional({ type: SslRequest })
  ssl?: SslRequest;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Oracle serviceName; MongoDB authSource, directConnection' })
  metadata?: Record<string, unknown>;
}

export interface CreateConnectionInput {
  readonly configName: string;
  readonly type: string;
  readonly host: string;
  readonly port: number;
  readonly databaseName: string;
  readonly schema?: string;
  readonly userName: string;
  readonly password: string;
  readonly ssl?: SslInput;
  readonly metadata?: Record<string, unknown>;
}

/** Parse stage, empty-body check and shape pass (JSON field names) of a create body. */
export function readCreateConnection(body: Record<string, unknown>): CreateConnectionInput {
  const input = {
    configName: optionalString(body, 'configName') ?? '',
    type: optionalString(body, 'type') ?? '',
    host: optionalString(body, 'host') ?? '',
    port: optionalInteger(body, 'port') ?? 0,
    databaseName: optionalString(body, 'databaseName') ?? '',
    schema: optionalString(body, 'schema'),
    userName: optionalString(body, 'userName') ?? '',
    // Present but empty is a real password: a database user may have none (a local MariaDB root).
    password: optionalString(body, 'password'),
    ssl: readSsl(body),
    metadata: readMetadata(body),
  };
  const empty =
    input.configName === '' && input.type === '' && input.host === '' && input.port === 0 && input.databaseName === '' &&
    !input.schema && input.userName === '' && !input.password && !input.ssl && (!input.metadata || Object.keys(input.metadata).length === 0);
  if (empty) throw Errors.emptyBody();

  const problems: FieldProblem[] = [];
  if (input.configName === '') problems.push(Shape.required('configName'));
  if (input.type === '') problems.push(Shape.required('type'));
  else if (!(CONNECTION_TYPES as readonly string[]).includes(input.type)) problems.push(Shape.oneOfTypes('type'));
  if (input.host === '') problems.push(Shape.required('host'));
  else if (!isHostShape(input.host.trim())) problems.push(Shape.host('host'));
  // Quirk kept: port 0 is "missing".
  if (input.port === 0) problems.push(Shape.required('port'));
  else if (input.port < 1) problems.push(Shape.min('port', 1));
  else if (input.port > 65_535) problems.push(Shape.max('port', 65_535));
  if (input.databaseName === '') problems.push(Shape.required('databaseName'));
  if (input.userName === '') problems.push(Shape.required('userName'));
  if (input.password === undefined) problems.push(Shape.required('password'));
  if (problems.length > 0) throw Errors.fieldProblems(problems);
  return {
    configName: input.configName,
    type: input.type,
    host: input.host,
    port: input.port,
    databaseName: input.databaseName,
    ...(input.schema ? { schema: input.schema } : {}),
    userName: input.userName,
    password: input.password ?? '',
    ...(input.ssl ? { ssl: input.ssl } : {}),
    ...(input.metadata && Object.keys(input.metadata).length > 0 ? { metadata: input.metadata } : {}),
  };
}
