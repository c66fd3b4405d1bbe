/** What every operation group receives from createEngine: the detected ports and settled options. */
import { EngineError, ErrorText } from './errors';
import type { Limits } from './limits';
import type {
  ActiveExecutionChecker,
  ConnectionStore,
  ConnectorRegistry,
  CredentialProtector,
  ExecutionStore,
  ResultSink,
  SchemaCache,
} from './ports';
import { StoreAccess } from './connections/store-access';
import type { Tracer } from './support/tracer';

export interface EngineContext {
  readonly registry: ConnectorRegistry;
  readonly connectionStore?: ConnectionStore;
  readonly encryptedPersistence: boolean;
  readonly credentialProtector?: CredentialProtector;
  readonly schemaCache?: SchemaCache;
  readonly resultSink?: ResultSink;
  readonly executionStore?: ExecutionStore;
  readonly activeExecutionChecker?: ActiveExecutionChecker;
  readonly tracer: Tracer;
  readonly limits: Limits;
  readonly clock: () => Date;
}

/** The store, or validation "connection store is not configured". */
export function requireStore(context: EngineContext): StoreAccess {
  if (!context.connectionStore) throw new EngineError('validation', ErrorText.storeNotConfigured);
  return new StoreAccess(context.connectionStore);
}
