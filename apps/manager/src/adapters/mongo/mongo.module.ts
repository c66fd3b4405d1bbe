import { type DynamicModule, Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import type { MongoSettings } from '@fetcher/contracts';
import { CONNECTION_MODEL, ConnectionSchema } from './connection.schema';

/**
 * The Manager's one MongoDB connection. Feature schemas register here so the composition root
 * stays the only place adapters are bound; other collections (jobs) add their `forFeature` entry.
 */
@Module({})
export class MongoModule {
  static forRoot(settings: MongoSettings, features: Parameters<typeof MongooseModule.forFeature>[0] = []): DynamicModule {
    const feature = MongooseModule.forFeature([{ name: CONNECTION_MODEL, schema: ConnectionSchema }, ...features]);
    return {
      module: MongoModule,
      global: true,
      imports: [
        MongooseModule.forRoot(settings.uri, {
          dbName: settings.dbName,
          serverSelectionTimeoutMS: 5_000,
          connectTimeoutMS: 5_000,
          ...(settings.tlsCaPem ? { tls: true, ca: settings.tlsCaPem } : {}),
        }),
        feature,
      ],
      exports: [feature],
    };
  }
}
