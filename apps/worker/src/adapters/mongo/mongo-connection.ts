import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { type Db, MongoClient } from 'mongodb';
import type { WorkerMongoSettings } from '../../config/worker.config';

/** Pause before opening the client again after a connect that failed. */
const RECONNECT_DELAY_MS = 1_000;

/**
 * The Worker's MongoDB client. It connects on first use, so a database that is down at startup
 * fails the self-probe and readiness instead of the process. Closed last, after the jobs drained.
 *
 * Once connected, the driver rides out a lost server by itself. A first connect that fails is
 * different: the driver closes the client's topology and keeps it, so every later operation fails
 * with "Topology is closed" and the client never recovers. Only `connect()` builds a new topology, so
 * a topology closed by anyone but `onApplicationShutdown` schedules one, which repeats until it holds.
 */
export class MongoConnection implements OnApplicationShutdown {
  readonly client: MongoClient;
  readonly db: Db;
  #shuttingDown = false;
  #reconnect: NodeJS.Timeout | undefined;
  readonly #logger = new Logger(MongoConnection.name);

  constructor(settings: WorkerMongoSettings, private readonly reconnectDelayMs = RECONNECT_DELAY_MS) {
    this.client = new MongoClient(settings.uri, {
      maxPoolSize: settings.maxPoolSize,
      serverSelectionTimeoutMS: 10_000,
      ...(settings.tlsCaPem ? { ca: settings.tlsCaPem } : {}),
    });
    this.db = this.client.db(settings.dbName);
    this.client.on('topologyClosed', () => this.#scheduleReconnect());
  }

  async onApplicationShutdown(): Promise<void> {
    this.#shuttingDown = true;
    clearTimeout(this.#reconnect);
    await this.client.close();
  }

  #scheduleReconnect(): void {
    if (this.#shuttingDown || this.#reconnect) return;
    this.#logger.warn(`MongoDB could not be reached; connecting again in ${this.reconnectDelayMs} ms`);
    this.#reconnect = setTimeout(() => {
      this.#reconnect = undefined;
      // A failure closes the new topology too, which lands back here for the next attempt.
      if (!this.#shuttingDown) this.client.connect().catch(() => undefined);
    }, this.reconnectDelayMs);
    // A pending attempt alone must not keep a process alive that has nothing else to do.
    this.#reconnect.unref();
  }
}
