/** The success results of both modes. */
import { EngineError, ErrorText } from '../errors';
import type { DirectResult, ProtectionAppliedBy, ResultIntegrity, ResultProtection, ResultReference } from '../models';
import { isObjectLike } from '../support/guards';

const APPLIED_BY: ReadonlySet<string> = new Set<ProtectionAppliedBy>(['engine', 'adapter', 'host']);

export interface Streamed {
  readonly rows: number;
  readonly bytes: number;
  readonly digest: string;
  readonly completedAt: string;
}

export function directResult(data: Uint8Array, streamed: Streamed): DirectResult {
  return {
    data,
    format: 'json',
    rowCount: streamed.rows,
    plaintextSize: streamed.bytes,
    integrity: { algorithm: 'SHA-256', digest: streamed.digest },
    protection: { encrypted: false, appliedBy: 'engine' },
    completedAt: streamed.completedAt,
  };
}

/** The sink's reference, checked: integrity and size are the sink's when given, else the engine's. */
export function storedReference(value: unknown, streamed: Streamed): ResultReference {
  if (!isObjectLike(value) || typeof value.path !== 'string') throw new EngineError('unavailable', ErrorText.persistFailed);
  const reference: { -readonly [K in keyof ResultReference]: ResultReference[K] } = {
    path: value.path,
    format: 'json',
    rowCount: streamed.rows,
    sizeBytes: isSize(value.sizeBytes) ? value.sizeBytes : streamed.bytes,
    integrity: readIntegrity(value.integrity) ?? { algorithm: 'SHA-256', digest: streamed.digest },
    completedAt: streamed.completedAt,
  };
  if (value.protection !== undefined && value.protection !== null) reference.protection = readProtection(value.protection);
  return reference;
}

function readProtection(value: unknown): ResultProtection {
  if (!isObjectLike(value) || typeof value.appliedBy !== 'string' || !APPLIED_BY.has(value.appliedBy)) {
    throw new EngineError('validation', ErrorText.appliedByInvalid);
  }
  const protection: { -readonly [K in keyof ResultProtection]: ResultProtection[K] } = {
    encrypted: value.encrypted === true,
    appliedBy: value.appliedBy as ProtectionAppliedBy,
  };
  if (typeof value.keyVersion === 'number') protection.keyVersion = value.keyVersion;
  if (typeof value.mode === 'string') protection.mode = value.mode;
  return protection;
}

function readIntegrity(value: unknown): ResultIntegrity | undefined {
  if (!isObjectLike(value) || typeof value.algorithm !== 'string') return undefined;
  const integrity: { -readonly [K in keyof ResultIntegrity]: ResultIntegrity[K] } = { algorithm: value.algorithm };
  if (typeof value.digest === 'string') integrity.digest = value.digest;
  if (typeof value.signature === 'string') integrity.signature = value.signature;
  return integrity;
}

function isSize(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
