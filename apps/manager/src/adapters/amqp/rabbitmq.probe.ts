import type { ProbeResult, ReadinessProbe } from '@fetcher/platform';
import type { AmqpJobPublisher } from './job-publisher.amqp';

/**
 * Readiness of the job publisher, from its own state (no extra connection): an open breaker is
 * `down`, a half-open one `degraded`, a live connection `up`.
 */
export class RabbitMqReadinessProbe implements ReadinessProbe {
  readonly name = 'rabbitmq';
  readonly timeoutMs = 2_000;

  constructor(private readonly publisher: Pick<AmqpJobPublisher, 'health'>) {}

  check(): Promise<ProbeResult> {
    const { connected, breakerState } = this.publisher.health();
    if (breakerState === 'open') return Promise.resolve({ status: 'down', error: 'circuit breaker open', breaker_state: breakerState });
    if (breakerState === 'half-open') {
      return Promise.resolve({ status: 'degraded', error: 'circuit breaker half-open', breaker_state: breakerState });
    }
    if (!connected) return Promise.resolve({ status: 'down', error: 'not connected', breaker_state: breakerState });
    return Promise.resolve({ status: 'up', breaker_state: breakerState });
  }
}
