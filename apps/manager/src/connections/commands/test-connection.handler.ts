import { Inject, Logger } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Engine } from '@fetcher/engine';
import { Errors } from '../../errors/catalogue';
import { ENGINE } from '../../ports/engine.port';
import { RATE_LIMITER, type RateLimiter } from '../../ports/rate-limiter.port';
import { ConnectionDirectory } from '../connection-directory';
import { connectFailure, dialFailure, dialFailureLog, secretTexts } from '../dial-errors';
import { TestConnectionCommand, type TestConnectionResult } from './test-connection.command';

/** The whole dial (host safety, decrypt, connect, ping, close) gets this budget. */
export const TEST_BUDGET_MS = 10_000;

/**
 * Test a connection: take a rate-limit token first (unknown ids use tokens too, so the limiter is
 * no existence oracle), resolve, then let the engine dial within the budget.
 */
@CommandHandler(TestConnectionCommand)
export class TestConnectionHandler implements ICommandHandler<TestConnectionCommand> {
  readonly #logger = new Logger(TestConnectionHandler.name);

  constructor(
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    @Inject(ENGINE) private readonly engine: Engine,
    private readonly directory: ConnectionDirectory,
  ) {}

  async execute({ tenant, id }: TestConnectionCommand): Promise<TestConnectionResult> {
    const decision = await this.limiter.take(id, tenant);
    if (!decision.allowed) throw Errors.rateLimited(decision.retryAfterSeconds);
    let found;
    try {
      found = await this.directory.byId(tenant, id);
    } catch (error) {
      throw dialFailure(error, '', () => Errors.internal());
    }
    if (!found) throw Errors.entityNotFound('connection');
    const connection = 'internal' in found ? found.internal : found.stored;
    const sslMode = 'internal' in found ? found.internal.sslMode : (found.stored.ssl?.mode ?? '');
    const started = process.hrtime.bigint();
    try {
      await this.engine.testConnection(tenant, connection.configName, { signal: AbortSignal.timeout(TEST_BUDGET_MS) });
    } catch (error) {
      const answer = dialFailure(error, sslMode, connectFailure);
      const secrets = secretTexts(() => ('internal' in found ? found.internal.descriptor : this.directory.storedDescriptor(found.stored)));
      // The driver's own account of the failure, masked, for the operator only (never in the answer).
      this.#logger.debug({ configName: connection.configName, ...dialFailureLog(error, secrets) }, 'connection test failed');
      throw answer;
    }
    // Whole milliseconds rounded up, so a successful test never reports 0.
    const latencyMs = Math.max(1, Math.ceil(Number(process.hrtime.bigint() - started) / 1e6));
    return { status: 'success', message: 'Connection successful', latencyMs };
  }
}
