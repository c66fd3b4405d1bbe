import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Errors } from '../../errors/catalogue';
import { hasNulKey } from '../../http/json-bounds';
import { optionalObject, optionalString } from './body-fields';

export class SslRequest {
  @ApiProperty({ description: 'SSL mode; the allowed values depend on the type', example: 'require' })
  mode!: string;
  @ApiProperty({ description: 'CA certificate (PEM). Required whenever an SSL block is sent, even for mode "disable"' })
  ca!: string;
  @ApiPropertyOptional({ description: 'Client certificate (PEM)' })
  cert?: string;
  @ApiPropertyOptional({ description: 'Client private key (PEM)' })
  key?: string;
}

export interface SslInput {
  readonly mode: string;
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

/** The `ssl` block: absent, `{}` and all-empty blocks count as no block. */
export function readSsl(body: Record<string, unknown>): SslInput | undefined {
  const raw = optionalObject(body, 'ssl');
  if (!raw) return undefined;
  const ssl = {
    mode: optionalString(raw, 'mode', 'ssl.mode') ?? '',
    ca: optionalString(raw, 'ca', 'ssl.ca') ?? '',
    cert: optionalString(raw, 'cert', 'ssl.cert') ?? '',
    key: optionalString(raw, 'key', 'ssl.key') ?? '',
  };
  if (ssl.mode === '' && ssl.ca === '' && ssl.cert === '' && ssl.key === '') return undefined;
  return ssl;
}

/**
 * Metadata: any JSON object (the parse stage bounds its depth); an array or scalar does not parse.
 * A key with U+0000 is a shape problem on `metadata`: MongoDB refuses to store such a key.
 */
export function readMetadata(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const value = body.metadata;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw Errors.parseFailed('wrong_type', 'metadata');
  if (hasNulKey(value)) throw Errors.fieldProblems([{ field: 'metadata', message: 'metadata keys must not contain NUL characters', required: false }]);
  return value as Record<string, unknown>;
}
