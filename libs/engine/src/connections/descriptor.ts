/**
 * Connection descriptors: checked copies of what hosts and stores hand the engine. `hostAttributes`
 * and `secrets` ride along as non-enumerable properties, so JSON.stringify, spreads and loggers
 * never see them. Descriptors the engine builds for a store (create, patch) never carry secrets.
 */
import { EngineError, ErrorText } from '../errors';
import { ConnectionInput, type ConnectionDescriptor, type ConnectionInputFields, type ConnectionPatch } from '../models';
import { isNonBlankString, isObjectLike, isPlainObject } from '../support/guards';
import { hide, readSecrets } from './secrets';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const PATCH_KEYS = new Set(['type', 'host', 'port', 'databaseName', 'schema', 'userName', 'sslMode', 'hostAttributes', 'password']);

/** A checked copy of a descriptor, or undefined when the value is not one. */
export function copyDescriptor(value: unknown): ConnectionDescriptor | undefined {
  if (!isObjectLike(value)) return undefined;
  const v = value;
  if (!isNonBlankString(v.configName) || !isNonBlankString(v.type)) return undefined;
  if (typeof v.host !== 'string' || !isPort(v.port)) return undefined;
  if (typeof v.databaseName !== 'string' || typeof v.userName !== 'string') return undefined;
  const id = optional(v.id, (x) => typeof x === 'string');
  const schema = optional(v.schema, (x) => typeof x === 'string');
  const sslMode = optional(v.sslMode, (x) => typeof x === 'string');
  const keyVersion = optional(v.keyVersion, (x) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0);
  const hostAttributes = optional(v.hostAttributes, isObjectLike);
  const secrets = readSecrets(v.secrets);
  if ([id, schema, sslMode, keyVersion, hostAttributes].includes(INVALID) || secrets === false) return undefined;
  const copy: Mutable<ConnectionDescriptor> = {
    configName: v.configName,
    type: v.type,
    host: v.host,
    port: v.port,
    databaseName: v.databaseName,
    userName: v.userName,
  };
  if (id !== undefined) copy.id = id as string;
  if (schema !== undefined) copy.schema = schema as string;
  if (sslMode !== undefined) copy.sslMode = sslMode as string;
  if (keyVersion !== undefined) copy.keyVersion = keyVersion as number;
  if (hostAttributes !== undefined) hide(copy, 'hostAttributes', hostAttributes);
  if (secrets !== undefined) hide(copy, 'secrets', secrets);
  return copy;
}

/** Reads a ConnectionInput (or its plain fields) and checks it: validation "connection input is invalid". */
export function readConnectionInput(value: unknown): ConnectionInput {
  let input: ConnectionInput;
  if (value instanceof ConnectionInput) input = value;
  else if (isPlainObject(value) && (value.password === undefined || typeof value.password === 'string')) {
    input = new ConnectionInput(value as never);
  } else if (isObjectLike(value) && typeof value.password === 'function') {
    // A ConnectionInput from another copy of this package (instanceof fails across copies).
    const password: unknown = (value.password as () => unknown).call(value);
    if (typeof password !== 'string') throw new EngineError('validation', ErrorText.invalidInput);
    input = new ConnectionInput({ ...(value as never as ConnectionInputFields), hostAttributes: value.hostAttributes as never, password });
  } else throw new EngineError('validation', ErrorText.invalidInput);
  if (copyDescriptor(input) === undefined) throw new EngineError('validation', ErrorText.invalidInput);
  return input;
}

export function descriptorFromInput(input: ConnectionInput, id: string, keyVersion: number | undefined): ConnectionDescriptor {
  const descriptor = copyDescriptor({ ...input.toJSON(), password: undefined, id, keyVersion, hostAttributes: input.hostAttributes });
  if (!descriptor) throw new EngineError('validation', ErrorText.invalidInput);
  return descriptor;
}

/** Checks a patch and returns it as a plain copy. `configName` (or any unknown key) is refused. */
export function readPatch(value: unknown): ConnectionPatch {
  if (!isPlainObject(value)) throw new EngineError('validation', ErrorText.invalidPatch);
  for (const key of Object.keys(value)) {
    if (!PATCH_KEYS.has(key)) throw new EngineError('validation', ErrorText.invalidPatch);
  }
  const patch = { ...value } as Mutable<ConnectionPatch>;
  if (patch.password !== undefined && typeof patch.password !== 'string') {
    throw new EngineError('validation', ErrorText.invalidPatch);
  }
  return patch;
}

/** The descriptor with the patch applied; the result must still be a valid descriptor. */
export function applyPatch(descriptor: ConnectionDescriptor, patch: ConnectionPatch, keyVersion: number | undefined): ConnectionDescriptor {
  const merged: Record<string, unknown> = { ...descriptor, hostAttributes: descriptor.hostAttributes };
  for (const [key, value] of Object.entries(patch)) {
    if (key !== 'password' && value !== undefined) merged[key] = value;
  }
  if (keyVersion !== undefined) merged.keyVersion = keyVersion;
  const patched = copyDescriptor(merged);
  if (!patched) throw new EngineError('validation', ErrorText.invalidPatch);
  return patched;
}

const INVALID = Symbol('invalid');

/** `undefined` and `null` both mean "absent" (document stores return null for unset fields). */
function optional(value: unknown, check: (value: unknown) => boolean): unknown {
  if (value === undefined || value === null) return undefined;
  return check(value) ? value : INVALID;
}

function isPort(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 65_535;
}
