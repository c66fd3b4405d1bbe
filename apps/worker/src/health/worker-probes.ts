import { S3ServiceException } from '@aws-sdk/client-s3';
import { amqpProbe, type CircuitBreaker, type ProbeResult, type ReadinessProbe } from '@fetcher/platform';
import type { AmqpConnections } from '../adapters/amqp/amqp-connections';
import type { S3ResultStore } from '../adapters/s3/result-store.s3';

/** `s3`: HeadBucket within 2 s; the common failures get a plain name instead of the SDK's text. */
export function s3Probe(store: S3ResultStore, tls: boolean): ReadinessProbe {
  return {
    name: 's3',
    timeoutMs: 2_000,
    async check(signal: AbortSignal): Promise<ProbeResult> {
      try {
        await store.headBucket(signal);
        return { status: 'up', tls };
      } catch (error) {
        const status = error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
        if (status === 404) return { status: 'down', error: 'bucket not found', tls };
        if (status === 403) return { status: 'down', error: 'access denied', tls };
        return { status: 'down', error: error instanceof Error ? error.name : 'object storage unreachable', tls };
      }
    },
  };
}

/**
 * `rabbitmq`: both connections open (waiting briefly for them, since they open on first use and the
 * startup self-probe may run before they have), and the broker breaker not open.
 */
export function rabbitProbe(amqp: AmqpConnections, breaker: CircuitBreaker, tls: boolean): ReadinessProbe {
  const state = amqpProbe(() => ({ breaker: breaker.state, connected: amqp.connected, tls }));
  return {
    name: 'rabbitmq',
    timeoutMs: 2_000,
    async check(signal: AbortSignal): Promise<ProbeResult> {
      await amqp.waitConnected(1_500, signal).catch(() => undefined);
      return state.check(signal);
    },
  };
}
