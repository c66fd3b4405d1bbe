import { amqpUrl, envBool, envInt, envUrl, type TlsRequirement } from '@fetcher/platform';
import { z } from 'zod';

const port = (fallback: number) => envInt({ min: 1, max: 65_535, default: fallback });

/** The RabbitMQ variables both services read, with the same rules and messages. */
export const RABBITMQ_ENV = {
  RABBITMQ_URI: z.enum(['amqp', 'amqps'], { error: 'must be amqp or amqps' }).default('amqp'),
  RABBITMQ_HOST: z.string().default('localhost'),
  RABBITMQ_PORT_AMQP: port(5672),
  RABBITMQ_DEFAULT_USER: z.string().optional(),
  RABBITMQ_DEFAULT_PASS: z.string().optional(),
  /** The management port: checked, not used (kept for the original service's deployments). */
  RABBITMQ_PORT_HOST: port(15_672),
  RABBITMQ_HEALTH_CHECK_URL: envUrl({ protocols: ['http', 'https'] }).optional(),
  RABBITMQ_FETCHER_WORK_QUEUE: z.string({ error: 'is required' }),
  RABBITMQ_TLS: envBool(false),
};

/** Set together or not at all (`pairCheck`). */
export const RABBITMQ_CREDENTIALS = ['RABBITMQ_DEFAULT_USER', 'RABBITMQ_DEFAULT_PASS'] as const;

type RabbitmqValues = z.output<z.ZodObject<typeof RABBITMQ_ENV>>;

export interface RabbitmqSettings {
  /** With percent-encoded credentials. */
  readonly url: string;
  readonly workQueue: string;
  readonly tls: boolean;
  readonly healthUrl?: string;
}

export function rabbitmqSettingsFrom(e: RabbitmqValues): RabbitmqSettings {
  return {
    url: amqpUrl({ scheme: e.RABBITMQ_URI, host: e.RABBITMQ_HOST, port: e.RABBITMQ_PORT_AMQP, user: e.RABBITMQ_DEFAULT_USER, password: e.RABBITMQ_DEFAULT_PASS }),
    workQueue: e.RABBITMQ_FETCHER_WORK_QUEUE,
    tls: e.RABBITMQ_TLS,
    ...(e.RABBITMQ_HEALTH_CHECK_URL ? { healthUrl: e.RABBITMQ_HEALTH_CHECK_URL } : {}),
  };
}

/** RabbitMQ's part of the SaaS TLS rule, on the raw environment: `amqps`. */
export function rabbitmqTlsRequirement(env: Readonly<Record<string, string | undefined>>, configured = true): TlsRequirement {
  return { variable: 'RABBITMQ_URI', configured, tls: (env.RABBITMQ_URI ?? 'amqp') === 'amqps' };
}
