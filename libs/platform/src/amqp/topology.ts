import type { Channel } from 'amqplib';

/** Names shared by the Manager, the Worker and the infrastructure that binds event queues. */
export const FETCHER_TOPOLOGY = Object.freeze({
  deadLetterExchange: 'fetcher.dlx',
  deadLetterQueue: 'fetcher.dlq',
  deadLetterRoutingKey: 'fetcher.dlq.key',
  defaultEventsExchange: 'fetcher.job.events',
  /** Dead letters are kept seven days, and at most this many, so a poison flood cannot fill the broker. */
  deadLetterTtlMs: 604_800_000,
  deadLetterMaxLength: 10_000,
});

/** What declaring needs; amqplib's `Channel` and `ConfirmChannel` both fit. */
export type TopologyChannel = Pick<Channel, 'assertExchange' | 'assertQueue' | 'bindQueue' | 'checkQueue'>;

export interface FetcherTopologyOptions {
  readonly workQueue: string;
  readonly eventsExchange: string;
}

/** The broker refused a declaration. `objectName` says which object; the channel is closed by then. */
export class TopologyError extends Error {
  constructor(
    readonly objectKind: 'exchange' | 'queue' | 'binding',
    readonly objectName: string,
    /** AMQP reply code: 406 (exists with other arguments), 404 (missing), 403 (access refused), ... */
    readonly replyCode: number | undefined,
  ) {
    super(topologyMessage(objectKind, objectName, replyCode));
    this.name = 'TopologyError';
  }
}

/**
 * Declares the work queue (dead-lettering to `fetcher.dlx`), the dead-letter exchange and queue, and
 * the durable topic exchange for job events. Declaring is idempotent; an object that already exists
 * with other arguments makes the broker answer 406, reported as a `TopologyError` naming it.
 */
export async function assertFetcherTopology(channel: TopologyChannel, options: FetcherTopologyOptions): Promise<void> {
  const t = FETCHER_TOPOLOGY;
  await declare('exchange', t.deadLetterExchange, () => channel.assertExchange(t.deadLetterExchange, 'direct', { durable: true }));
  await declare('queue', t.deadLetterQueue, () => channel.assertQueue(t.deadLetterQueue, {
    durable: true,
    arguments: { 'x-message-ttl': t.deadLetterTtlMs, 'x-max-length': t.deadLetterMaxLength },
  }));
  await declare('binding', `${t.deadLetterQueue} <- ${t.deadLetterExchange}`, () => channel.bindQueue(t.deadLetterQueue, t.deadLetterExchange, t.deadLetterRoutingKey));
  await declare('queue', options.workQueue, () => channel.assertQueue(options.workQueue, {
    durable: true,
    arguments: { 'x-dead-letter-exchange': t.deadLetterExchange, 'x-dead-letter-routing-key': t.deadLetterRoutingKey },
  }));
  await declare('exchange', options.eventsExchange, () => channel.assertExchange(options.eventsExchange, 'topic', { durable: true }));
}

/** For deployments that manage the topology themselves: only checks, passively, that the work queue exists. */
export async function checkWorkQueue(channel: TopologyChannel, workQueue: string): Promise<void> {
  await declare('queue', workQueue, () => channel.checkQueue(workQueue));
}

async function declare(kind: TopologyError['objectKind'], name: string, run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (error) {
    // The driver's text quotes the broker's reply verbatim; the structured code is what we keep.
    const code = (error as { code?: unknown } | null)?.code;
    throw new TopologyError(kind, name, typeof code === 'number' ? code : undefined);
  }
}

function topologyMessage(kind: string, name: string, code: number | undefined): string {
  switch (code) {
    case 406: return `RabbitMQ refused to declare ${kind} "${name}": it already exists with different settings (406 PRECONDITION_FAILED)`;
    case 404: return `RabbitMQ ${kind} "${name}" does not exist (404 NOT_FOUND)`;
    case 403: return `RabbitMQ refused access to ${kind} "${name}" (403 ACCESS_REFUSED)`;
    default: return `RabbitMQ could not declare ${kind} "${name}"${code === undefined ? '' : ` (reply code ${code})`}`;
  }
}
