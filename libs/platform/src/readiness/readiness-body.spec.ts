import { type HealthCheckResult } from '@nestjs/terminus';
import { drainAnswer, readinessAnswer } from './readiness-body';

const meta = { version: '1.4.0', deploymentMode: 'byoc' } as const;
const mongodb = { status: 'up', latency_ms: 3 };
const rabbitmq = { status: 'down', latency_ms: 0, error: 'circuit breaker open', breaker_state: 'open' };
const redis = { status: 'skipped', reason: 'not configured' };

describe(readinessAnswer.name, () => {
  it('writes the documented body in the probes\' order, not Terminus\' passing-first order', () => {
    const result: HealthCheckResult = {
      status: 'error',
      info: { mongodb: { status: 'up', check: mongodb }, redis: { status: 'up', check: redis } },
      error: { rabbitmq: { status: 'down', check: rabbitmq } },
      details: { mongodb: { status: 'up', check: mongodb }, redis: { status: 'up', check: redis }, rabbitmq: { status: 'down', check: rabbitmq } },
    };
    const answer = readinessAnswer(result, ['mongodb', 'rabbitmq', 'redis'], meta);
    expect(answer.status).toBe(503);
    expect(JSON.stringify(answer.body)).toBe(JSON.stringify({
      status: 'unhealthy', checks: { mongodb, rabbitmq, redis }, version: '1.4.0', deployment_mode: 'byoc',
    }));
  });

  it('answers 200 healthy when Terminus says ok, skipped and n/a included', () => {
    const na = { status: 'n/a', reason: 'single-tenant' };
    const result: HealthCheckResult = { status: 'ok', details: { redis: { status: 'up', check: redis }, tenant_manager: { status: 'up', check: na } } };
    expect(readinessAnswer(result, ['redis', 'tenant_manager'], meta)).toEqual({
      status: 200, body: { status: 'healthy', checks: { redis, tenant_manager: na }, version: '1.4.0', deployment_mode: 'byoc' },
    });
  });

  it('answers an empty set of checks as healthy', () => {
    expect(readinessAnswer({ status: 'ok', details: {} }, [], meta)).toEqual({
      status: 200, body: { status: 'healthy', checks: {}, version: '1.4.0', deployment_mode: 'byoc' },
    });
  });

  it('answers Terminus\' shutting_down with the drain body', () => {
    expect(readinessAnswer({ status: 'shutting_down', details: { mongodb: { status: 'up', check: mongodb } } }, ['mongodb'], meta)).toEqual(drainAnswer(meta));
    expect(drainAnswer(meta)).toEqual({
      status: 503,
      body: { status: 'unhealthy', checks: { draining: { status: 'down', reason: 'graceful drain in progress' } }, version: '1.4.0', deployment_mode: 'byoc' },
    });
  });
});
