import type { FactoryProvider, Provider } from '@nestjs/common';
import { MANAGER_CONFIG, type ManagerConfig } from '../../config/manager.config';
import type { Telemetry } from '@fetcher/platform';
import { CLOCK, type Clock } from '../../ports/clock.port';
import { JOB_CONTROL_PUBLISHER } from '../../ports/job-control-publisher.port';
import { JOB_PUBLISHER } from '../../ports/job-publisher.port';
import { TELEMETRY } from '@fetcher/platform';
import { RABBITMQ_PROBE } from '../readiness/probes.provider';
import { AmqpJobPublisher } from './job-publisher.amqp';
import { RabbitMqReadinessProbe } from './rabbitmq.probe';

/** The AMQP publisher, signing with the internal HMAC key of the key ring's current entry. */
export const amqpJobPublisherProvider: FactoryProvider<AmqpJobPublisher> = {
  provide: AmqpJobPublisher,
  inject: [MANAGER_CONFIG, CLOCK, TELEMETRY],
  useFactory: (config: ManagerConfig, clock: Clock, telemetry: Telemetry | null) =>
    new AmqpJobPublisher({ url: config.amqp.url, workQueue: config.amqp.workQueue, signingKey: config.keyRing.current().internalHmac, telemetry }, clock),
};

/** Binds the job publisher and job control ports and the rabbitmq readiness check to the one AMQP publisher. */
export const JOB_PUBLISHER_PROVIDERS: Provider[] = [
  amqpJobPublisherProvider,
  { provide: JOB_PUBLISHER, useExisting: AmqpJobPublisher },
  { provide: JOB_CONTROL_PUBLISHER, useExisting: AmqpJobPublisher },
  { provide: RABBITMQ_PROBE, inject: [AmqpJobPublisher], useFactory: (publisher: AmqpJobPublisher) => new RabbitMqReadinessProbe(publisher) },
];
