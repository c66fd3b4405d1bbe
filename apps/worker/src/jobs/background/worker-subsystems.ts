import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Lifecycle } from '@fetcher/platform';
import { JobQueueTransport } from '../../adapters/amqp/job-queue.transport';
import { BackgroundLoops } from './background-loops';

/** In-flight jobs are never cancelled; the platform's termination grace period is the real bound. */
const DRAIN_BOUND_MS = 24 * 60 * 60_000;

/**
 * Registers what takes in work with the platform's lifecycle. Stopped in reverse order on drain:
 * first the consumer (no new deliveries; jobs in flight finish), then the background loops.
 */
@Injectable()
export class WorkerSubsystems implements OnModuleInit {
  constructor(
    private readonly lifecycle: Lifecycle,
    private readonly loops: BackgroundLoops,
    private readonly transport: JobQueueTransport,
  ) {}

  onModuleInit(): void {
    this.lifecycle.register({
      name: 'background-loops',
      start: () => Promise.resolve(this.loops.start()),
      stop: () => Promise.resolve(this.loops.stop()),
    });
    // The transport itself is started by Nest's microservice; here it is only drained.
    this.lifecycle.register({ name: 'job-consumer', start: () => Promise.resolve(), stop: () => this.transport.drain(), stopTimeoutMs: DRAIN_BOUND_MS });
  }
}
