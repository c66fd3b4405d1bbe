import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { TenantContext } from '@fetcher/engine';
import {
  assertFetcherTopology, CircuitBreaker, type BreakerState, envelopeHeaders, FETCHER_TOPOLOGY, injectTraceHeaders, SpanKind, type Telemetry,
} from '@fetcher/platform';
import amqp, { type AmqpConnectionManager } from 'amqp-connection-manager';
import type { ChannelModel, ConfirmChannel, ConsumeMessage } from 'amqplib';
import { buildJobCancelMessage, buildJobMessage, JOB_CONTROL_EXCHANGE, JOB_CONTROL_ROUTING_KEY } from '@fetcher/contracts';
import type { Job } from '../../jobs/job';
import type { Clock } from '../../ports/clock.port';
import type { JobControlPublisher } from '../../ports/job-control-publisher.port';
import type { JobPublisher } from '../../ports/job-publisher.port';
import { traced } from '@fetcher/platform';

export interface AmqpJobPublisherSettings {
  readonly url: string;
  /** The routing key on the default exchange, so the work queue's name. */
  readonly workQueue: string;
  /** The internal HMAC key of the current key ring entry. */
  readonly signingKey: Buffer;
  readonly confirmTimeoutMs?: number;
  /** Seconds between reconnection attempts after the broker went away. */
  readonly reconnectSeconds?: number;
  readonly breaker?: { readonly threshold?: number; readonly coolDownMs?: number; readonly now?: () => number };
  /** When set, each publish is a producer span whose context travels in the message headers. */
  readonly telemetry?: Telemetry | null;
}

/** Why one publish attempt failed; never carries driver text. */
export class PublishError extends Error {
  constructor(readonly reason: 'not_connected' | 'no_tenant' | 'circuit_open' | 'nacked' | 'unroutable' | 'confirm_timeout' | 'channel_failed') {
    super(`publish failed: ${reason}`);
    this.name = 'PublishError';
  }
}

const ATTEMPTS = 2;

interface ChannelEntry {
  readonly model: ChannelModel;
  channel: Promise<ConfirmChannel>;
  readonly returned: Set<string>;
}

/**
 * Publishes job requests to the work queue on the default exchange: persistent, mandatory,
 * confirmed. amqp-connection-manager keeps one connection alive and reconnects after the broker
 * comes back; the publisher itself never queues a message while disconnected, it fails at once
 * so the HTTP caller hears about it (the job is then failed, or swept later). Each publish gets up
 * to two attempts, the second on a fresh channel; a circuit breaker stops the hammering when the
 * broker keeps failing.
 */
export class AmqpJobPublisher implements JobPublisher, JobControlPublisher, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(AmqpJobPublisher.name);
  readonly #settings: AmqpJobPublisherSettings;
  readonly #clock: Clock;
  readonly #breaker: CircuitBreaker;
  readonly #manager: AmqpConnectionManager;
  #channel?: ChannelEntry;
  #closed = false;

  constructor(settings: AmqpJobPublisherSettings, clock: Clock) {
    this.#settings = settings;
    this.#clock = clock;
    this.#breaker = new CircuitBreaker('fetcher.rabbitmq.publisher', {
      threshold: settings.breaker?.threshold ?? 5,
      coolDownMs: settings.breaker?.coolDownMs ?? 30_000,
      halfOpenMaxTrials: 1,
      ...(settings.breaker?.now ? { now: settings.breaker.now } : {}),
    });
    this.#manager = amqp.connect([settings.url], {
      reconnectTimeInSeconds: settings.reconnectSeconds ?? 5,
      heartbeatIntervalInSeconds: 5,
    });
    // Without listeners these events would be unhandled; the URL can carry credentials, so only the error name is logged.
    this.#manager.on('connect', () => {
      this.logger.log('connected to RabbitMQ');
      // A fresh connection is worth a trial now rather than after the rest of the cool-down.
      this.#breaker.endCoolDown();
    });
    this.#manager.on('disconnect', ({ err }) => this.logger.warn(`disconnected from RabbitMQ (${err?.name ?? 'closed'})`));
    this.#manager.on('connectFailed', ({ err }) => this.logger.warn(`cannot reach RabbitMQ (${err?.name ?? 'error'}); retrying`));
  }

  /** For readiness: whether a connection is up, and the breaker's state. */
  health(): { connected: boolean; breakerState: BreakerState } {
    return { connected: this.#manager.isConnected(), breakerState: this.#breaker.state };
  }

  /**
   * For readiness while the breaker is half-open and a connection is up: the probe makes the trial
   * itself, a fresh confirm channel with the topology declared (a round trip to the broker), which
   * closes the breaker or starts a fresh cool-down. Without it a Manager that its own `/readyz` (503
   * while half-open) took out of rotation would never get the job whose publish closes the breaker.
   * Returns the health after the trial; in any other state it only reads it.
   */
  async healthWithTrial(): Promise<{ connected: boolean; breakerState: BreakerState }> {
    if (this.#breaker.state === 'half-open' && this.#manager.isConnected() && this.#breaker.tryAcquire()) {
      try {
        this.#dropChannel(); // a cached channel proves nothing: open one now
        await this.#confirmChannel();
        this.#breaker.recordSuccess();
      } catch {
        this.#breaker.recordFailure();
      }
    }
    return this.health();
  }

  /** Resolves once connected (the topology is then declared on first use), or rejects after `timeoutMs`. */
  async waitForConnection(timeoutMs: number): Promise<void> {
    // connect() waits for the next 'connect' event; when the connection opened before this call,
    // that event is already gone and the wait would run out its whole timeout.
    if (this.#manager.isConnected()) return;
    await this.#manager.connect({ timeout: timeoutMs });
  }

  /**
   * Gives the first connection a moment before requests arrive, so a job created right after boot
   * is not failed for a connection still being opened. A broker that is down does not stop the
   * boot: readiness reports it, and the connection manager keeps trying.
   */
  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.waitForConnection(5_000);
    } catch {
      this.logger.warn('RabbitMQ not reachable at startup; publishing fails until it is');
    }
  }

  async publishExtractionRequested(tenant: TenantContext, job: Job, requestId: string): Promise<void> {
    const queue = this.#settings.workQueue;
    await traced(this.#settings.telemetry, `publish ${queue}`, {
      kind: SpanKind.PRODUCER,
      attributes: { 'messaging.system': 'rabbitmq', 'messaging.destination.name': queue, 'messaging.operation.type': 'send', 'fetcher.job.id': job.id },
    }, () => this.#publish(job, requestId));
  }

  /**
   * A signed `job.cancel` on the durable fanout control exchange, through the same connection,
   * channel and breaker as job requests. Not mandatory: with no Worker bound the message is dropped,
   * and the job's `cancel_requested_at` still reaches the Worker that holds it at its next renewal.
   */
  async publishCancel(tenant: TenantContext, jobId: string, requestedAt: Date): Promise<void> {
    const body = buildJobCancelMessage(jobId, requestedAt);
    await this.#withRetries(jobId, (channel) =>
      this.#confirmed(channel.returned, (callback) => {
        const headers = envelopeHeaders({
          key: this.#settings.signingKey,
          tenantId: '',
          exchange: JOB_CONTROL_EXCHANGE,
          routingKey: JOB_CONTROL_ROUTING_KEY,
          body,
          jobId,
          now: this.#clock.now(),
          requestId: tenant.requestId ?? '',
          extra: {},
        });
        channel.channel.publish(JOB_CONTROL_EXCHANGE, JOB_CONTROL_ROUTING_KEY, body, { persistent: true, contentType: 'application/json', headers }, callback);
        return headers['x-message-signature'] as string;
      }),
    );
  }

  async #publish(job: Job, requestId: string): Promise<void> {
    const body = buildJobMessage(job);
    await this.#withRetries(job.id, () => this.#publishOnce(job, body, requestId));
  }

  async #withRetries(jobId: string, once: (channel: { channel: ConfirmChannel; returned: Set<string> }) => Promise<void>): Promise<void> {
    if (!this.#breaker.tryAcquire()) throw new PublishError('circuit_open');
    let lastError: unknown;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        await once(await this.#confirmChannel());
        this.#breaker.recordSuccess();
        return;
      } catch (error) {
        lastError = error;
        this.logger.warn(`publish attempt ${attempt} for job ${jobId} failed (${error instanceof PublishError ? error.reason : 'error'})`);
        this.#dropChannel(); // the retry goes out on a fresh channel
      }
    }
    this.#breaker.recordFailure();
    throw lastError;
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#dropChannel();
    await this.#manager.close();
  }

  /** Waits for the broker's confirm of one publish; `send` publishes with the callback and answers the message's signature. */
  #confirmed(returned: Set<string>, send: (callback: (error: unknown) => void) => string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let signature = '';
      const timer = setTimeout(() => reject(new PublishError('confirm_timeout')), this.#settings.confirmTimeoutMs ?? 5_000);
      try {
        signature = send((error) => {
          clearTimeout(timer);
          if (error) reject(new PublishError('nacked'));
          else if (returned.delete(signature)) reject(new PublishError('unroutable'));
          else resolve();
        });
      } catch {
        clearTimeout(timer);
        reject(new PublishError('channel_failed'));
      }
    });
  }

  async #publishOnce(job: Job, body: Buffer, requestId: string): Promise<void> {
    const { channel, returned } = await this.#confirmChannel();
    const queue = this.#settings.workQueue;
    // Single-tenant: no tenant header, and the signature binds an empty tenant id.
    const headers = envelopeHeaders({
      key: this.#settings.signingKey,
      tenantId: '',
      exchange: '',
      routingKey: queue,
      body,
      jobId: job.id,
      now: this.#clock.now(),
      requestId,
      // traceparent/tracestate of the active span, when telemetry is on; nothing otherwise.
      extra: injectTraceHeaders({}),
    });
    // The broker sends basic.return before the ack of the same message, so an unroutable one is known by the callback.
    await this.#confirmed(returned, (callback) => {
      channel.publish('', queue, body, { persistent: true, mandatory: true, contentType: 'application/json', headers }, callback);
      return headers['x-message-signature'] as string;
    });
  }

  /** One confirm channel per connection, with the topology declared on it first; recreated after any failure. */
  async #confirmChannel(): Promise<{ channel: ConfirmChannel; returned: Set<string> }> {
    const model = this.#manager.connection;
    if (!model) throw new PublishError('not_connected');
    let entry = this.#channel;
    if (!entry || entry.model !== model) {
      this.#dropChannel();
      const created: ChannelEntry = { model, returned: new Set<string>(), channel: Promise.resolve(undefined as never) };
      created.channel = this.#openChannel(created);
      this.#channel = entry = created;
      // A failed open must not stay cached.
      created.channel.catch(() => {
        if (this.#channel === created) this.#channel = undefined;
      });
    }
    try {
      return { channel: await entry.channel, returned: entry.returned };
    } catch (error) {
      this.logger.warn(`opening a RabbitMQ channel failed (${error instanceof Error ? error.name : 'error'})`);
      throw new PublishError('channel_failed');
    }
  }

  async #openChannel(entry: ChannelEntry): Promise<ConfirmChannel> {
    const channel = await entry.model.createConfirmChannel();
    channel.on('error', (error: Error) => this.logger.warn(`RabbitMQ channel error (${error.name})`));
    channel.on('close', () => {
      if (this.#channel === entry) this.#channel = undefined;
    });
    channel.on('return', (message: ConsumeMessage) => {
      const signature: unknown = message.properties.headers?.['x-message-signature'];
      if (typeof signature === 'string') entry.returned.add(signature);
    });
    await assertFetcherTopology(channel, { workQueue: this.#settings.workQueue, eventsExchange: FETCHER_TOPOLOGY.defaultEventsExchange });
    // Every Worker replica binds its own queue to this exchange; the Manager only publishes to it.
    await channel.assertExchange(JOB_CONTROL_EXCHANGE, 'fanout', { durable: true });
    return channel;
  }

  #dropChannel(): void {
    const current = this.#channel;
    this.#channel = undefined;
    if (current) void current.channel.then((ch) => ch.close()).catch(() => undefined);
  }
}
