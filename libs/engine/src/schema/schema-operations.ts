/** Schema operations: discover (cache-first), discover fresh, and validate. */
import { EngineError, ErrorText } from '../errors';
import type { SchemaSnapshot, SchemaValidationReport, TenantContext, ValidationFailure } from '../models';
import type { Limits } from '../limits';
import { requireStore, type EngineContext } from '../engine-context';
import { requireTenant } from '../tenant';
import { Deadline } from '../support/deadline';
import type { StoreAccess } from '../connections/store-access';
import { readConfigName } from '../connections/connection-operations';
import { SchemaResolver } from './schema-resolver';
import { countFailures, datasourceNotFound, schemaFailures, sortFailures } from './schema-checks';
import { checkBlankNames, readValidationRequest, type ValidationDatasource } from './validation-request';

/** A report plus the snapshots it was checked against (the planner expands `*` from them). */
export interface DetailedValidation {
  readonly report: SchemaValidationReport;
  readonly snapshots: ReadonlyMap<string, SchemaSnapshot>;
}

export class SchemaOperations {
  readonly #context: EngineContext;
  readonly #resolver: SchemaResolver;

  constructor(context: EngineContext) {
    this.#context = context;
    this.#resolver = new SchemaResolver(context.registry, context.schemaCache);
  }

  discover(tenantValue: unknown, configName: unknown, host: AbortSignal | undefined): Promise<SchemaSnapshot> {
    return this.#discover(tenantValue, configName, host, true);
  }

  discoverFresh(tenantValue: unknown, configName: unknown, host: AbortSignal | undefined): Promise<SchemaSnapshot> {
    return this.#discover(tenantValue, configName, host, false);
  }

  async validate(tenantValue: unknown, request: unknown, host: AbortSignal | undefined): Promise<SchemaValidationReport> {
    const store = requireStore(this.#context);
    const tenant = requireTenant(tenantValue);
    const datasources = readValidationRequest(request);
    return (await this.validateDetailed(store, tenant, datasources, this.#context.limits, host)).report;
  }

  /** Steps 1 (blank names) to 6 of schema validation, with the given (effective) limits. */
  async validateDetailed(
    store: StoreAccess,
    tenant: TenantContext,
    datasources: readonly ValidationDatasource[],
    limits: Limits,
    host: AbortSignal | undefined,
  ): Promise<DetailedValidation> {
    checkBlankNames(datasources);
    const deadline = new Deadline(host, limits.timeoutMs);
    deadline.throwIfAborted();
    const snapshots = new Map<string, SchemaSnapshot>();
    const counted = countFailures(datasources, limits);
    if (counted.length > 0) return { report: report(counted), snapshots };
    const failures: ValidationFailure[] = [];
    for (const datasource of datasources) {
      let snapshot = snapshots.get(datasource.configName);
      if (!snapshot) {
        const descriptor = await deadline.race(store.find(tenant, datasource.configName));
        if (!descriptor) {
          failures.push(datasourceNotFound(datasource.configName));
          continue;
        }
        snapshot = await this.#resolver.resolve(tenant, descriptor, true, deadline);
        snapshots.set(datasource.configName, snapshot);
      }
      failures.push(...schemaFailures(datasource, snapshot));
    }
    return { report: report(failures), snapshots };
  }

  async #discover(tenantValue: unknown, configNameValue: unknown, host: AbortSignal | undefined, useCache: boolean): Promise<SchemaSnapshot> {
    const store = requireStore(this.#context);
    const tenant = requireTenant(tenantValue);
    const configName = readConfigName(configNameValue);
    const deadline = new Deadline(host, undefined);
    deadline.throwIfAborted();
    const descriptor = await deadline.race(store.find(tenant, configName));
    if (!descriptor) throw new EngineError('not_found', ErrorText.connectionNotFound);
    return this.#resolver.resolve(tenant, descriptor, useCache, deadline);
  }
}

function report(failures: ValidationFailure[]): SchemaValidationReport {
  return { valid: failures.length === 0, failures: sortFailures(failures) };
}
