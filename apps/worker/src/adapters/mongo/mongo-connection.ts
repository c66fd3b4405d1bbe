import type { OnApplicationShutdown } from '@nestjs/common';
import { type Db, MongoClient } from 'mongodb';

export interface MongoSettings {
  readonly uri: string;
  readonly dbName: string;
  readonly maxPoolSize: number;
  readonly tlsCaPem?: string;
}

/**
 * The Worker's MongoDB client. It connects on first use, so a database that is down at startup
 * fails the self-probe and readiness instead of the process. Closed last, after the jobs drained.
 */
export class MongoConnection implements OnApplicationShutdown {
  readonly client: MongoClient;
  readonly db: Db;

  constructor(settings: MongoSettings) {
    this.client = new MongoClient(settings.uri, {
      maxPoolSize: settings.maxPoolSize,
      serverSelectionTimeoutMS: 10_000,
      ...(settings.tlsCaPem ? { ca: settings.tlsCaPem } : {}),
    });
    this.db = this.client.db(settings.dbName);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}
