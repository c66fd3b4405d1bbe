import type { ProbeResult, ReadinessProbe } from '@fetcher/platform';
import type { AmqpJobPublisher } from './job-publisher.amqp';

/**
 * Readiness of the job publisher, from its own state (no extra connection): an open breaker is
 * `down`, a live connection `up`. A half-open breaker with a live connection gets its trial from the
 * probe (`healthWithTrial`): `up` once the broker answered, `down` if it did not; half-open without a
 * connection is `degraded`.
 */
export class RabbitMqReadinessProbe implements ReadinessProbe {
  readonly name = 'rabbitmq';
  readonly timeoutMs = 2_000;

  constructor(private readonly publisher: Pick<AmqpJobPublisher, 'healthWithTrial'>) {}

  async check(): Promise<ProbeResult> {
    const { connected, breakerState } = await this.publisher.healthWithTrial();
    if (breakerState === 'open') return Promise.resolve({ status: 'down', error: 'circuit breaker open', breaker_state: breakerState });
    if (breakerState === 'half-open') {
      return Promise.resolve({ status: 'degraded', error: 'circuit breaker half-open', breaker_state: breakerState });
    }
    if (!connected) return Promise.resolve({ status: 'down', error: 'not connected', breaker_state: breakerState });
    return Promise.resolve({ status: 'up', breaker_state: breakerState });
  }
}
