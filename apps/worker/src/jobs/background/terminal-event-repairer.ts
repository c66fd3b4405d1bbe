import { Inject, Injectable, Logger } from '@nestjs/common';
import { isTerminalStatus, JOB_STORE, type JobStore } from '../../ports/job-store.port';
import { JobOutbox } from '../job-outbox';

export const REPAIR_BATCH = 25;

/**
 * Sends the stored event of every terminal job whose marker is still set (the publish failed, or the
 * process died between the terminal write and the confirm), with its original id.
 */
@Injectable()
export class TerminalEventRepairer {
  readonly #log = new Logger(TerminalEventRepairer.name);

  constructor(
    @Inject(JOB_STORE) private readonly jobs: JobStore,
    private readonly outbox: JobOutbox,
  ) {}

  /** One pass; returns how many events went out. Never throws. */
  async runOnce(): Promise<number> {
    let sent = 0;
    try {
      for (const job of await this.jobs.pendingEvents(REPAIR_BATCH)) {
        const { status } = job;
        const payload = job.metadata.terminalEventPayload;
        if (!isTerminalStatus(status) || job.metadata.terminalEventStatus !== status || typeof payload !== 'string' || payload === '') {
          this.#log.error(`job ${job.id}: stored terminal event is inconsistent; not sent`);
          continue;
        }
        try {
          await this.outbox.emit(job.id, status, payload);
          sent++;
        } catch {
          this.#log.warn(`job ${job.id}: event still not confirmed; next pass retries`);
        }
      }
    } catch {
      this.#log.warn('terminal event repair pass failed; next pass retries');
    }
    return sent;
  }
}
