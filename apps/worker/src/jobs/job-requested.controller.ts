import { Controller, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { EventPattern, Payload } from '@nestjs/microservices';
import { jobIdOfBody } from '@fetcher/platform';
import type { ConsumeMessage } from 'amqplib';
import { v7 as uuidv7 } from 'uuid';
import { JOB_REQUESTED } from '../adapters/amqp/job-queue.transport';
import { WorkerMetrics } from '../metrics/worker-metrics';
import { FailExpiredJobCommand } from './commands/fail-expired-job.command';
import { RunJobCommand } from './commands/run-job.command';
import type { Settlement } from './job-settings';
import { MessageVerifier } from './message-verifier';

/** Turns a delivery into a command, and the command's outcome into how the delivery is settled. */
@Controller()
export class JobRequestedController {
  readonly #log = new Logger(JobRequestedController.name);

  constructor(
    private readonly verifier: MessageVerifier,
    private readonly commands: CommandBus,
    private readonly metrics: WorkerMetrics,
  ) {}

  @EventPattern(JOB_REQUESTED)
  async onJobRequested(@Payload() msg: ConsumeMessage): Promise<Settlement> {
    const headers = (msg.properties.headers ?? {}) as Record<string, unknown>;
    const rawRequestId = headers['X-Request-Id'];
    const requestId = typeof rawRequestId === 'string' && rawRequestId !== '' ? rawRequestId : uuidv7();
    const verified = this.verifier.verify(msg);
    if (!verified.ok) {
      // Logged without the body: it is not trusted, and it may hold customer field names.
      this.#log.warn(`message rejected (${verified.reason}), request ${requestId}`);
      if (verified.reason === 'expired' && verified.authentic) {
        await this.commands.execute(new FailExpiredJobCommand(jobIdOfBody(msg.content).toLowerCase(), requestId));
      }
      return this.#reject(verified.reason);
    }
    try {
      const outcome = await this.commands.execute(
        new RunJobCommand({ body: msg.content, headers, tenantHeader: verified.tenantId, requestId, receivedAt: new Date() }),
      );
      return outcome.settle === 'ack' ? 'ack' : this.#reject(outcome.reason ?? 'internal');
    } catch {
      // Infrastructure failed before the job could be settled (the database, say): the DLQ keeps the message.
      this.#log.error(`job message could not be handled, request ${requestId}`);
      return this.#reject('internal');
    }
  }

  #reject(reason: string): Settlement {
    this.metrics.messagesRejected.inc({ reason });
    return 'dead-letter';
  }
}

