/**
 * Building the engine. Wiring mistakes fail here, at construction, not on first use:
 * `null`/`undefined` means "feature off", anything else must really be the port.
 */
import { EngineError, ErrorText, misconfiguredText } from './errors';
import type { Limits } from './limits';
import {
  CONNECTION_STORE_METHODS,
  type ActiveExecutionChecker,
  type ConnectionStore,
  type ConnectorRegistry,
  type CredentialProtector,
  type ExecutionStore,
  type Observability,
  type ResultSink,
  type SchemaCache,
} from './ports';
import { mergeLimits } from './limits';
import { Tracer } from './support/tracer';
import { isObjectLike } from './support/guards';
import { DefaultEngine } from './default-engine';
import type { Engine } from './engine-api';

export interface EngineOptions {
  connectorRegistry: ConnectorRegistry;
  encryptedPersistence?: boolean;
  credentialProtector?: CredentialProtector | null;
  connectionStore?: ConnectionStore | null;
  schemaCache?: SchemaCache | null;
  resultSink?: ResultSink | null;
  executionStore?: ExecutionStore | null;
  activeExecutionChecker?: ActiveExecutionChecker | null;
  observability?: Observability | null;
  /** Merged over DEFAULT_LIMITS; every given value must be a positive integer. */
  limits?: Partial<Limits>;
  /** For tests: the source of every timestamp the engine writes. */
  clock?: () => Date;
}

export type { Engine } from './engine-api';

export function createEngine(options: EngineOptions): Engine {
  const given: Record<string, unknown> = isObjectLike(options) ? options : {};
  const registry = optionalPort<ConnectorRegistry>('connector registry', given.connectorRegistry, ['connector']);
  if (!registry) throw new EngineError('validation', ErrorText.registryRequired);
  const encrypted = given.encryptedPersistence ?? false;
  if (typeof encrypted !== 'boolean') throw new EngineError('validation', ErrorText.encryptedFlagInvalid);
  const protector = optionalPort<CredentialProtector>('credential protector', given.credentialProtector, ['protect', 'reveal']);
  if (encrypted && !protector) throw new EngineError('validation', ErrorText.protectorRequired);
  const clock = given.clock ?? (() => new Date());
  if (typeof clock !== 'function') throw new EngineError('validation', ErrorText.clockInvalid);
  return new DefaultEngine({
    registry,
    encryptedPersistence: encrypted,
    credentialProtector: protector,
    connectionStore: optionalPort<ConnectionStore>('connection store', given.connectionStore, CONNECTION_STORE_METHODS),
    schemaCache: optionalPort<SchemaCache>('schema cache', given.schemaCache, ['getSchema', 'putSchema']),
    resultSink: optionalPort<ResultSink>('result sink', given.resultSink, ['openResultStream']),
    executionStore: optionalPort<ExecutionStore>('execution store', given.executionStore, ['saveExecution']),
    activeExecutionChecker: optionalPort<ActiveExecutionChecker>('active execution checker', given.activeExecutionChecker, [
      'hasActiveExecutions',
    ]),
    tracer: new Tracer(optionalPort<Observability>('observability', given.observability, ['startSpan'])),
    limits: mergeLimits(given.limits),
    clock: clock as () => Date,
  });
}

// null/undefined means "feature off". Anything else must really be the port: a half-wired object fails at boot.
function optionalPort<T extends object>(name: string, value: unknown, methods: readonly (keyof T & string)[]): T | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObjectLike(value)) throw new EngineError('validation', misconfiguredText(name));
  const missing = methods.filter((m) => typeof value[m] !== 'function');
  if (missing.length > 0) throw new EngineError('validation', misconfiguredText(name));
  return value as T;
}
