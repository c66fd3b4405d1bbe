import { z } from 'zod';

// The tenant-manager's `/connections` body. Decoding follows what its Go client accepts: unknown
// fields are dropped, absent or null fields are left out, and a value of the wrong type (a string
// port, a timestamp that is not RFC 3339) fails the whole response. Which fields a caller needs
// (`databases.fetcher.mongodb.database`, `messaging.rabbitmq.vhost`, ...) is the caller's check.

/** Absent and null both mean "not set", as in Go's decoding into zero values. */
const opt = <T extends z.ZodType>(schema: T) => schema.nullish().transform((value) => value ?? undefined);
const text = opt(z.string());
const integer = opt(z.number().int());
const flag = opt(z.boolean());

const PostgreSQLConfigSchema = z.object({
  host: text, port: integer, database: text, username: text, password: text,
  schema: text, sslmode: text, sslrootcert: text, sslcert: text, sslkey: text,
});

const MongoDBConfigSchema = z.object({
  host: text, port: integer, database: text, username: text, password: text, uri: text, authSource: text,
  directConnection: flag, maxPoolSize: opt(z.number().int().nonnegative()), tls: flag,
  tlsCAFile: text, tlsCertFile: text, tlsKeyFile: text, tlsSkipVerify: flag,
});

const ConnectionSettingsSchema = z.object({ maxOpenConns: integer, maxIdleConns: integer, statementTimeout: text });

const DatabaseConfigSchema = z.object({
  postgresql: opt(PostgreSQLConfigSchema),
  postgresqlReplica: opt(PostgreSQLConfigSchema),
  mongodb: opt(MongoDBConfigSchema),
  connectionSettings: opt(ConnectionSettingsSchema),
});

const RabbitMQConfigSchema = z.object({
  host: text, port: integer, vhost: text, username: text, password: text,
  /** Absent: the service's global RabbitMQ TLS setting decides. */
  tls: flag,
  tlsCAFile: text,
});

export const TenantConfigSchema = z.object({
  id: text,
  tenantSlug: text,
  tenantName: text,
  service: text,
  status: text,
  isolationMode: text,
  /** Keyed by module name (`fetcher`, `onboarding`, `transaction`, `crm`), with no service level. */
  databases: opt(z.record(z.string(), DatabaseConfigSchema)),
  /** The tenant's own RabbitMQ vhost and credentials, shared by every module. */
  messaging: opt(z.object({ rabbitmq: opt(RabbitMQConfigSchema) })),
  connectionSettings: opt(ConnectionSettingsSchema),
  createdAt: opt(z.iso.datetime({ offset: true })),
  updatedAt: opt(z.iso.datetime({ offset: true })),
});

const TenantSummarySchema = z.object({ id: text, name: text, status: text });
/** A bare array; `null` is an empty list. An object wrapper (a pagination envelope) fails. */
export const ActiveTenantsSchema = z.array(TenantSummarySchema).nullable().transform((list) => list ?? []);

export type TenantConfig = z.output<typeof TenantConfigSchema>;
export type DatabaseConfig = z.output<typeof DatabaseConfigSchema>;
export type PostgreSQLConfig = z.output<typeof PostgreSQLConfigSchema>;
export type MongoDBConfig = z.output<typeof MongoDBConfigSchema>;
export type RabbitMQConfig = z.output<typeof RabbitMQConfigSchema>;
export type ConnectionSettings = z.output<typeof ConnectionSettingsSchema>;
/** One entry of `/v1/tenants/active`. `status` is passed through, never interpreted. */
export type TenantSummary = z.output<typeof TenantSummarySchema>;
