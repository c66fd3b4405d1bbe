/** Test-connection: find -> registry -> build -> connector.testConnection -> always close. */
import { EngineError, ErrorText, keptReason } from '../errors';
import { requireStore, type EngineContext } from '../engine-context';
import { requireTenant } from '../tenant';
import { Deadline } from '../support/deadline';
import { buildConnector, closeQuietly, resolveFactory } from '../support/connector-access';
import { readConfigName } from './connection-operations';

export interface TestConnectionResult {
  readonly success: true;
  readonly configName: string;
}

export class ConnectionTester {
  readonly #context: EngineContext;

  constructor(context: EngineContext) {
    this.#context = context;
  }

  async test(tenantValue: unknown, configNameValue: unknown, host: AbortSignal | undefined): Promise<TestConnectionResult> {
    const store = requireStore(this.#context);
    const tenant = requireTenant(tenantValue);
    const configName = readConfigName(configNameValue);
    const deadline = new Deadline(host, undefined);
    deadline.throwIfAborted();
    const descriptor = await store.find(tenant, configName);
    if (!descriptor) throw new EngineError('not_found', ErrorText.connectionNotFound);
    const connector = buildConnector(resolveFactory(this.#context.registry, descriptor.type), descriptor);
    try {
      await connector.testConnection(deadline.signal);
    } catch (error) {
      if (deadline.signal.aborted) throw deadline.error();
      // Whatever the connector threw (its own connect EngineError included) becomes the one fixed
      // text; the connector's reason, a closed set, is kept.
      throw new EngineError('connect', ErrorText.connectFailed, error, keptReason(error));
    } finally {
      await closeQuietly(connector);
    }
    return { success: true, configName };
  }
}

