import { ApiPropertyOptional } from '@nestjs/swagger';
import { Errors, type FieldProblem } from '../../errors/catalogue';
import { CONNECTION_TYPES, isHostShape, Shape } from '../connection-rules';
import { optionalInteger, optionalString } from './body-fields';
import { readMetadata, readSsl, type SslInput, SslRequest } from './ssl.request';

/** PATCH /v1/management/connections/{id}. Every field optional; `productName` cannot be patched. */
export class UpdateConnectionRequest {
  @ApiPropertyOptional({ example: 'pg-main', minLength: 3, maxLength: 100 })
  configName?: string;
  @ApiPropertyOptional({ enum: CONNECTION_TYPES })
  type?: string;
  @ApiPropertyOptional()
  host?: string;
  @ApiPropertyOptional({ minimum: 1, maximum: 65535 })
  port?: number;
  @ApiPropertyOptional()
  databaseName?: string;
  @ApiPropertyOptional({ description: 'Replaces the schema, "" included' })
  schema?: string;
  @ApiPropertyOptional()
  userName?: string;
  @ApiPropertyOptional({ format: 'password', description: 'Re-encrypted with the current key' })
  password?: string;
  @ApiPropertyOptional({ type: SslRequest, description: 'Applied only when ssl.mode is present; then the whole block is replaced' })
  ssl?: SslRequest;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Replaces the whole object; {} clears it' })
  metadata?: Record<string, unknown>;
}

export interface ConnectionPatchInput {
  readonly configName?: string;
  readonly type?: string;
  readonly host?: string;
  readonly port?: number;
  readonly databaseName?: string;
  readonly schema?: string;
  readonly userName?: string;
  readonly password?: string;
  /** Present only when the body's `ssl.mode` was given (quirk kept: SSL cannot be removed). */
  readonly ssl?: SslInput;
  readonly metadata?: Record<string, unknown>;
}

/** Parse stage, empty-body check and shape pass of a patch body. */
export function readConnectionPatch(body: Record<string, unknown>): ConnectionPatchInput {
  const ssl = readSsl(body);
  const patch: ConnectionPatchInput = {
    configName: optionalString(body, 'configName'),
    type: optionalString(body, 'type'),
    host: optionalString(body, 'host'),
    port: optionalInteger(body, 'port'),
    databaseName: optionalString(body, 'databaseName'),
    schema: optionalString(body, 'schema'),
    userName: optionalString(body, 'userName'),
    password: optionalString(body, 'password'),
    ssl: ssl && ssl.mode !== '' ? ssl : undefined,
    metadata: readMetadata(body),
  };
  const present = Object.entries(patch).filter(([, v]) => v !== undefined);
  // `{}`, `{"ssl":{}}` and unknown-only bodies are empty; an SSL block without a mode too, since it is ignored.
  if (present.length === 0) throw Errors.emptyBody();

  const problems: FieldProblem[] = [];
  if (patch.configName !== undefined && patch.configName !== '') {
    if (patch.configName.length < 3) problems.push(Shape.minLength('configName', 3));
    else if (patch.configName.length > 100) problems.push(Shape.maxLength('configName', 100));
  }
  if (patch.type !== undefined && patch.type !== '' && !(CONNECTION_TYPES as readonly string[]).includes(patch.type)) {
    problems.push(Shape.oneOfTypes('type'));
  }
  if (patch.host !== undefined && patch.host.trim() !== '' && !isHostShape(patch.host.trim())) problems.push(Shape.host('host'));
  if (patch.port !== undefined && patch.port !== 0) {
    if (patch.port < 1) problems.push(Shape.min('port', 1));
    else if (patch.port > 65_535) problems.push(Shape.max('port', 65_535));
  }
  if (problems.length > 0) throw Errors.fieldProblems(problems);
  return Object.fromEntries(present);
}
