import { randomUUID } from 'node:crypto';
import { BaseRpcContext, type CustomTransportStrategy, Server } from '@nestjs/microservices';
import type { AmqpConnectionManager, ChannelWrapper } from 'amqp-connection-manager';
import type { Channel, ConsumeMessage } from 'amqplib';
import { Logger } from '@nestjs/common';
import { extractTraceContext, type ReadinessProbe, SpanKind, type Telemetry } from '@fetcher/platform';
import { lastValueFrom } from 'rxjs';
import { nextRetryHeaders } from '../../jobs/redelivery';
import { traced } from '@fetcher/platform';
import { DEFAULT_GATE_INTERVALS, DependencyGate } from './dependency-gate';
import { type Settlement, settlementOf } from './settlement';

/** The one pattern the work queue carries. */
export const JOB_REQUESTED = 'fetcher.job.requested';

const RETRY_CONFIRM_TIMEOUT_MS = 5_000;

/** What a handler gets besides the message: the raw delivery, for access to its fields. */
export class JobQueueContext extends BaseRpcContext<[ConsumeMessage]> {
  get message(): ConsumeMessage {
    return this.args[0];
  }
}

export interface JobQueueOptions {
  readonly queue: string;
  /** Prefetch, and therefore the number of jobs run at once. */
  readonly concurrency: number;
  /** Declares (or only checks) the topology before consuming; a refusal stops startup. */
  readonly setupTopology: (channel: Channel) => Promise<void>;
  /** When set, each delivery is handled in a consumer span continuing the publisher's trace. */
  readonly telemetry?: Telemetry | null;
  /**
   * The checks of what a job needs: consuming starts once they all pass, pauses while one fails and
   * resumes after. Absent, consuming starts at once and never pauses.
   */
  readonly dependencies?: readonly ReadinessProbe[];
}

/**
 * A Nest microservice transport over the work queue that hands the raw delivery (body bytes and
 * headers, which the signature covers) to an `@EventPattern` handler and keeps acks manual. The
 * handler returns what became of the delivery; this class settles every delivery exactly once by it
 * (handled: ack, refused: dead-letter, try again: retry), and never requeues. A retry republishes
 * the same body and headers (so the signature still verifies) to the work queue through the default
 * exchange with `x-retry-count` one higher, and acks the original only once the broker confirmed the
 * copy; a copy the broker refused dead-letters the original instead.
 */
export class JobQueueTransport extends Server implements CustomTransportStrategy {
  #channel: ChannelWrapper | undefined;
  #retries: ChannelWrapper | undefined;
  #gate: DependencyGate | undefined;
  #draining = false;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #listeners = new Map<string, unknown[]>();

  constructor(
    private readonly connection: () => AmqpConnectionManager,
    private readonly options: JobQueueOptions,
  ) {
    super();
  }

  listen(ready: (error?: unknown) => void): void {
    this.#start().then(
      () => ready(),
      (error: unknown) => ready(error),
    );
  }

  /** Whether the consumer channel is open (readiness). */
  get connected(): boolean {
    return this.#channel !== undefined && this.connection().isConnected();
  }

  async #start(): Promise<void> {
    const channel = this.connection().createChannel({ confirm: false });
    this.#channel = channel;
    await channel.waitForConnect();
    // Declared once, before consuming: a refusal (406, an object that exists with other arguments)
    // rejects here and stops startup, instead of being retried on every reconnect.
    await channel.addSetup((ch: Channel) => this.options.setupTopology(ch));
    const dependencies = this.options.dependencies;
    if (!dependencies) return this.#consume();
    const consumer = { resume: () => this.#consume(), pause: () => this.#pause() };
    this.#gate = new DependencyGate(dependencies, consumer, new Logger(JobQueueTransport.name), DEFAULT_GATE_INTERVALS);
    this.#gate.start();
  }

  async #consume(): Promise<void> {
    const channel = this.#channel;
    if (!channel || this.#draining) return;
    const { queue, concurrency } = this.options;
    const tag = `${queue}-${randomUUID()}`;
    // The wrapper re-consumes after a reconnect; prefetch = concurrency, so we never hold more than we run.
    await channel.consume(queue, (msg) => this.#track(this.#dispatch(channel, msg)), { noAck: false, consumerTag: tag, prefetch: concurrency });
  }

  /** Stops taking deliveries; the jobs in flight go on. */
  async #pause(): Promise<void> {
    await this.#channel?.cancelAll();
  }

  /**
   * Drain: stop taking deliveries, then wait for the jobs in flight to finish; they are not cancelled.
   * A process killed meanwhile leaves its deliveries unacked, so the broker redelivers them.
   */
  async drain(): Promise<void> {
    this.#draining = true;
    await this.#gate?.stop(); // so that it cannot resume the consumer cancelled next
    await this.#channel?.cancelAll().catch(() => undefined);
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  async close(): Promise<void> {
    await this.drain();
    await this.#channel?.close();
    await this.#retries?.close();
    this.#channel = undefined;
    this.#retries = undefined;
  }

  on<EventKey extends string = string, EventCallback = unknown>(event: EventKey, callback: EventCallback): void {
    this.#listeners.set(event, [...(this.#listeners.get(event) ?? []), callback]);
  }

  unwrap<T>(): T {
    return this.connection() as T;
  }

  get inFlight(): number {
    return this.#inFlight.size;
  }

  #track(work: Promise<void>): void {
    const tracked = work.finally(() => this.#inFlight.delete(tracked));
    this.#inFlight.add(tracked);
  }

  async #dispatch(ch: ChannelWrapper, msg: ConsumeMessage): Promise<void> {
    const telemetry = this.options.telemetry;
    const settle = await traced(telemetry, `consume ${this.options.queue}`, {
      kind: SpanKind.CONSUMER,
      ...(telemetry ? { parent: extractTraceContext(msg.properties.headers) } : {}),
      attributes: { 'messaging.system': 'rabbitmq', 'messaging.destination.name': this.options.queue, 'messaging.operation.type': 'process' },
    }, () => this.#handle(msg));
    const final = settle === 'retry' ? await this.#republish(msg) : settle;
    try {
      if (final === 'ack') ch.ack(msg);
      else ch.nack(msg, false, false); // requeue = false: no loops; the queue dead-letters it
    } catch {
      // The channel closed under us: the broker redelivers the message on the next channel.
    }
  }

  async #handle(msg: ConsumeMessage): Promise<Settlement> {
    try {
      const handler = this.getHandlerByPattern(JOB_REQUESTED);
      if (!handler) return 'dead-letter';
      const outcome: unknown = await lastValueFrom(this.transformToObservable(await handler(msg, new JobQueueContext([msg]))), {
        defaultValue: undefined,
      });
      return settlementOf(outcome);
    } catch {
      return 'dead-letter'; // an unexpected throw: the process keeps running, the message goes to the DLQ
    }
  }

  /** The confirmed copy for a retry: `ack` settles the original, `dead-letter` when the copy was not confirmed. */
  async #republish(msg: ConsumeMessage): Promise<Settlement> {
    try {
      this.#retries ??= this.connection().createChannel({ confirm: true, json: false });
      // amqplib types the properties as `any`: only the ones the Manager sets are carried over, checked.
      const properties = msg.properties as { contentType?: unknown; headers?: Record<string, unknown> };
      await this.#retries.publish('', this.options.queue, msg.content, {
        persistent: true,
        mandatory: true,
        ...(typeof properties.contentType === 'string' ? { contentType: properties.contentType } : {}),
        headers: nextRetryHeaders(properties.headers ?? {}),
        timeout: RETRY_CONFIRM_TIMEOUT_MS,
      });
      return 'ack';
    } catch {
      return 'dead-letter';
    }
  }
}
