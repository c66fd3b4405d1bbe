import { Inject, Logger, Optional } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { MappedFields, TenantContext } from '@fetcher/engine';
import { type Telemetry, TELEMETRY, traced } from '@fetcher/platform';
import { v7 as uuidv7 } from 'uuid';
import { Errors } from '../../errors/catalogue';
import { CLOCK, type Clock } from '../../ports/clock.port';
import { CONNECTION_RESOLVER, type ConnectionResolver, type ResolvedConnection } from '../../ports/connection-resolver.port';
import { CONNECTIVITY_CHECK, type ConnectivityCheck } from '../../ports/connectivity-check.port';
import { JOB_PUBLISHER, type JobPublisher } from '../../ports/job-publisher.port';
import { JOB_REPOSITORY, type JobRepository } from '../../ports/job-repository.port';
import { IncrementalRefused, SCHEMA_CHECK, type SchemaCheck, type SchemaProblem, sortSchemaProblems } from '../../ports/schema-check.port';
import type { Job } from '../job';
import { checkDataRequest, checkFilterReferences, checkFilters, checkIncremental, requireMappedFields, requireSource } from '../job-request.rules';
import { requestHash } from '../request-hash';
import { CreateJobCommand, type CreateJobResult } from './create-job.command';
import { DispatchMarks } from './dispatch-marks';
import { describeError as describe, publishNewJob } from './publish-new-job';
import { SingleFlight } from './single-flight';

/** A finished job answers an identical request for this long after its creation; a failed one never does. */
export const DEDUP_WINDOW_MS = 5 * 60_000;
/** Each stored connection gets this long to accept a dial at job creation. */
export const CONNECTIVITY_TIMEOUT_MS = 10_000;
/** Each stored connection's tables and fields get this long to be checked at job creation; past it the Worker checks them. */
export const SCHEMA_CHECK_TIMEOUT_MS = 10_000;

@CommandHandler(CreateJobCommand)
export class CreateJobHandler implements ICommandHandler<CreateJobCommand, CreateJobResult> {
  readonly #logger = new Logger(CreateJobHandler.name);
  readonly #creating = new SingleFlight<CreateJobResult>();

  constructor(
    @Inject(JOB_REPOSITORY) private readonly jobs: JobRepository,
    @Inject(JOB_PUBLISHER) private readonly publisher: JobPublisher,
    @Inject(CONNECTION_RESOLVER) private readonly resolver: ConnectionResolver,
    @Inject(CONNECTIVITY_CHECK) private readonly connectivity: ConnectivityCheck,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SCHEMA_CHECK) private readonly schema: SchemaCheck,
    private readonly marks: DispatchMarks,
    /** A span per step of a creation (they show where a job's first milliseconds go); null when tracing is off. */
    @Optional() @Inject(TELEMETRY) private readonly telemetry: Telemetry | null = null,
  ) {}

  async execute({ tenant, request }: CreateJobCommand): Promise<CreateJobResult> {
    const mappedFields = requireMappedFields(request.mappedFields);
    // The hash comes before the remaining rules on purpose: it covers the cleaned request exactly as stored.
    const hash = requestHash({ mappedFields, filters: request.filters, incremental: request.incremental, metadata: request.metadata });
    checkDataRequest(mappedFields);
    const source = requireSource(request.metadata);
    checkFilterReferences(request.filterDatasources, mappedFields);

    // Identical requests in flight together share one creation: without this, each of a burst misses
    // the look-up (nothing is stored yet), dials the customer's database, and races to insert.
    const flight = this.#creating.run(`${tenant.tenantId}\u0000${hash}`, () => this.#create(tenant, mappedFields, request, hash, source));
    const result = await flight.outcome;
    return flight.shared ? { job: result.job, duplicate: true } : result;
  }

  async #create(tenant: TenantContext, mappedFields: MappedFields, request: CreateJobCommand['request'], hash: string, source: string): Promise<CreateJobResult> {
    // Dedup runs before any connection is looked at: a duplicate is answered even if its
    // connection has been deleted or is down since (clients rely on that).
    const step = <T>(name: string, work: () => Promise<T>): Promise<T> => traced(this.telemetry, name, {}, work);
    const recent = await step('job.dedup-lookup', () => this.jobs.findNewestByHashSince(tenant, hash, windowStart(this.clock.now())));
    if (recent && recent.status !== 'failed') return { job: recent, duplicate: true };

    const connections = await step('job.connections.resolve', () => this.#resolve(tenant, mappedFields));
    checkOwnership(connections, source);
    const types = new Map(connections.map((c) => [c.configName, c.descriptor.type]));
    checkFilters(mappedFields, request.filters, types);
    const incremental = checkIncremental(mappedFields, request.incremental, types);
    await step('job.connectivity-check', () => this.#checkConnectivity(tenant, connections));
    await step('job.schema-check', () => this.#checkSchema(tenant, connections, mappedFields, incremental, request.filters));

    const job = pendingJob(mappedFields, { ...request, incremental }, hash, this.clock.now());
    const existing = await step('job.insert', () => this.#insert(tenant, job));
    if (existing) return { job: existing, duplicate: true };
    await step('job.publish', () => this.#publish(tenant, job));
    return { job, duplicate: false };
  }

  async #resolve(tenant: TenantContext, mappedFields: MappedFields): Promise<ResolvedConnection[]> {
    const names = Object.keys(mappedFields);
    let resolved: ReadonlyMap<string, ResolvedConnection>;
    try {
      resolved = await this.resolver.resolve(tenant, names);
    } catch (error) {
      this.#logger.error(`connection resolution failed: ${describe(error)}`);
      throw Errors.internal();
    }
    if (resolved.size === 0) throw Errors.noConnectionsFound();
    const missing = names.find((name) => !resolved.has(name));
    if (missing !== undefined) throw Errors.missingDataSource(missing);
    return names.map((name) => resolved.get(name)!);
  }

  /** One after another, so a job with ten datasources never opens ten dials at once. */
  async #checkConnectivity(tenant: TenantContext, connections: readonly ResolvedConnection[]): Promise<void> {
    for (const connection of connections) {
      if (connection.internal) continue; // operator-configured: trusted, and not ours to probe
      const outcome = await this.connectivity.check(tenant, connection, CONNECTIVITY_TIMEOUT_MS);
      switch (outcome) {
        case 'ok':
          continue;
        case 'host_not_allowed':
          throw Errors.forbiddenHost();
        case 'ssl_mode_not_allowed':
          throw Errors.invalidSslMode(connection.descriptor.sslMode ?? '');
        case 'unavailable':
          throw Errors.connectionDown(connection.configName);
      }
    }
  }

  /**
   * The validate-schema check of every stored connection, one after another: a table, field or filter
   * field that does not exist is refused here (400 FET-1060 naming them, with the validate-schema
   * report) instead of a job that can only fail. A check that cannot finish within its budget (a slow
   * discovery, a failure after the dial succeeded) proves nothing either way: the job is accepted and
   * the Worker checks again. Internal datasources are skipped, as for the dial.
   */
  async #checkSchema(
    tenant: TenantContext,
    connections: readonly ResolvedConnection[],
    mappedFields: MappedFields,
    incremental: Job['incremental'],
    filters: Job['filters'],
  ): Promise<void> {
    const problems: SchemaProblem[] = [];
    for (const connection of connections) {
      if (connection.internal) continue;
      const tables = new Map(Object.entries(mappedFields[connection.configName] ?? {}).filter(([, fields]) => fields.length > 0));
      const ownIncremental = incremental && Object.hasOwn(incremental, connection.configName) ? incremental[connection.configName] : undefined;
      try {
        const signal = AbortSignal.timeout(SCHEMA_CHECK_TIMEOUT_MS);
        const filterFields = filterFieldsOf(filters, connection.configName);
        problems.push(...(await this.schema.check(tenant, connection, tables, signal, ownIncremental, filterFields)));
      } catch (error) {
        // The cursor cannot run on the table as it is: as certain as a missing field, so refused here.
        if (error instanceof IncrementalRefused) throw Errors.invalidIncremental(error.problem);
        this.#logger.warn(`schema check of '${connection.configName}' inconclusive, left to the Worker: ${describe(error)}`);
      }
    }
    if (problems.length > 0) throw Errors.jobSchemaProblems(sortSchemaProblems(problems));
  }

  /**
   * The repository is the real dedup guard, across processes too: another replica's identical
   * request may have stored a job since our look-up, and that job may even have finished since.
   * The repository answers it then (active, or completed within the window) instead of storing ours.
   */
  async #insert(tenant: TenantContext, job: Job): Promise<Job | undefined> {
    const outcome = await this.jobs.insertUnlessReusable(tenant, job, windowStart(this.clock.now()));
    if (outcome.created) return undefined;
    if ('existing' in outcome) return outcome.existing;
    this.#logger.error(`job insert kept conflicting on an active request hash that then vanished (job ${job.id})`);
    throw Errors.internal();
  }

  #publish(tenant: TenantContext, job: Job): Promise<void> {
    return publishNewJob({ jobs: this.jobs, publisher: this.publisher, clock: this.clock, logger: this.#logger, marks: this.marks }, tenant, job);
  }
}

function windowStart(now: Date): Date {
  return new Date(now.getTime() - DEDUP_WINDOW_MS);
}

/** Table (as sent) -> the field names its filters use, for one datasource (shapes were checked by `checkFilters`). */
function filterFieldsOf(filters: Job['filters'], configName: string): Map<string, string[]> {
  const byTable = filters && Object.hasOwn(filters, configName) ? filters[configName] : undefined;
  return new Map(Object.entries(byTable ?? {}).map(([table, byField]) => [table, Object.keys(byField)]));
}

function checkOwnership(connections: readonly ResolvedConnection[], source: string): void {
  for (const connection of connections) {
    if (connection.internal) continue;
    if (connection.productName === '') throw Errors.connectionNotAssigned(connection.configName);
    // Case-sensitive on purpose: product names are stored lower-case, and clients rely on "Reporter" not matching.
    if (connection.productName !== source) throw Errors.productMismatch(connection.configName, source);
  }
}

function pendingJob(
  mappedFields: MappedFields,
  request: { filters: Job['filters']; incremental?: Job['incremental']; metadata?: Job['metadata'] },
  hash: string,
  now: Date,
): Job {
  return {
    id: uuidv7(),
    status: 'pending',
    mappedFields,
    ...(request.filters && Object.keys(request.filters).length > 0 ? { filters: request.filters } : {}),
    ...(request.incremental && Object.keys(request.incremental).length > 0 ? { incremental: request.incremental } : {}),
    metadata: request.metadata ?? {},
    requestHash: hash,
    createdAt: now,
    completedAt: null,
    dispatchedAt: null,
    dispatchAttempts: 0,
  };
}
