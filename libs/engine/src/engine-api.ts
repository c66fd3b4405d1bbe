/**
 * The engine's operations, as hosts see them. Kept apart from `createEngine` (engine.ts) and its
 * implementation (default-engine.ts), so that neither imports the other for the type.
 */
import type { TestConnectionResult } from './connections/connection-tester';
import type { Limits } from './limits';
import type {
  ConnectionDescriptor,
  ConnectionInput,
  ConnectionPatch,
  ExtractionPlan,
  ExtractionRequest,
  ExtractionResult,
  ListPagedQuery,
  OperationOptions,
  Page,
  SchemaSnapshot,
  SchemaValidationReport,
  SchemaValidationRequest,
  TenantContext,
} from './models';

/** Every operation is async, takes the tenant first (executeExtraction reads it from the plan) and `{signal?}` last. */
export interface Engine {
  /** A copy of the effective limits. */
  limits(): Limits;

  createConnection(tenant: TenantContext, input: ConnectionInput, options?: OperationOptions): Promise<ConnectionDescriptor>;
  getConnection(tenant: TenantContext, configName: string, options?: OperationOptions): Promise<ConnectionDescriptor>;
  listConnections(tenant: TenantContext, options?: OperationOptions): Promise<ConnectionDescriptor[]>;
  getConnectionById(tenant: TenantContext, id: string, options?: OperationOptions): Promise<ConnectionDescriptor>;
  listConnectionsPaged(tenant: TenantContext, query: ListPagedQuery, options?: OperationOptions): Promise<Page<ConnectionDescriptor>>;
  updateConnection(tenant: TenantContext, configName: string, patch: ConnectionPatch, options?: OperationOptions): Promise<ConnectionDescriptor>;
  deleteConnection(tenant: TenantContext, configName: string, options?: OperationOptions): Promise<void>;
  updateConnectionById(tenant: TenantContext, id: string, patch: ConnectionPatch, options?: OperationOptions): Promise<ConnectionDescriptor>;
  deleteConnectionById(tenant: TenantContext, id: string, options?: OperationOptions): Promise<void>;
  /** The checker's own error is rethrown unchanged; without a checker the answer is false. */
  checkActiveExecutions(tenant: TenantContext, configName: string, options?: OperationOptions): Promise<boolean>;
  authorizeConnectionAccess(tenant: TenantContext, options?: OperationOptions): Promise<void>;

  testConnection(tenant: TenantContext, configName: string, options?: OperationOptions): Promise<TestConnectionResult>;

  discoverSchema(tenant: TenantContext, configName: string, options?: OperationOptions): Promise<SchemaSnapshot>;
  discoverSchemaFresh(tenant: TenantContext, configName: string, options?: OperationOptions): Promise<SchemaSnapshot>;
  validateSchema(tenant: TenantContext, request: SchemaValidationRequest, options?: OperationOptions): Promise<SchemaValidationReport>;

  planExtraction(tenant: TenantContext, request: ExtractionRequest, options?: OperationOptions): Promise<ExtractionPlan>;
  executeExtraction(plan: ExtractionPlan, options?: OperationOptions): Promise<ExtractionResult>;
}
