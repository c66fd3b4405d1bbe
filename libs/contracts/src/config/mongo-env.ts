import { envInt, mongoUriFromEnv, mongoUsesTls, type TlsRequirement } from '@fetcher/platform';
import { z } from 'zod';

/** The MongoDB variables both services read, with the same rules and messages. */
export const MONGO_ENV = {
  MONGO_URI: z.enum(['mongodb', 'mongodb+srv'], { error: 'must be mongodb or mongodb+srv' }).default('mongodb'),
  MONGO_HOST: z.string().default('localhost'),
  MONGO_PORT: envInt({ min: 1, max: 65_535 }).optional(),
  MONGO_USER: z.string().optional(),
  MONGO_PASSWORD: z.string().optional(),
  MONGO_NAME: z.string({ error: 'is required' }),
  MONGO_PARAMETERS: z.string().optional(),
  MONGO_TLS_CA_CERT: z.base64({ error: 'must be base64' }).optional(),
};

/** For a host that embeds the store: the database name is not asked for. */
export const MONGO_ENV_EMBEDDED = { MONGO_NAME: z.string().optional() };

/** Set together or not at all (`pairCheck`). */
export const MONGO_CREDENTIALS = ['MONGO_USER', 'MONGO_PASSWORD'] as const;

type MongoValues = z.output<z.ZodObject<typeof MONGO_ENV>>;

/** Where a service's MongoDB is. */
export interface MongoSettings {
  readonly uri: string;
  /** MONGO_NAME in lower case. */
  readonly dbName: string;
  /** MONGO_TLS_CA_CERT decoded: a PEM bundle. */
  readonly tlsCaPem?: string;
}

/** The settings from the parsed variables; undefined without a database name (an embedded store). */
export function mongoSettingsFrom(e: Omit<MongoValues, 'MONGO_NAME'> & { readonly MONGO_NAME?: string }): MongoSettings | undefined {
  if (e.MONGO_NAME === undefined) return undefined;
  return {
    uri: mongoUriFromEnv({ ...e, MONGO_PORT: e.MONGO_PORT === undefined ? undefined : String(e.MONGO_PORT) }),
    dbName: e.MONGO_NAME.toLowerCase(),
    ...(e.MONGO_TLS_CA_CERT ? { tlsCaPem: Buffer.from(e.MONGO_TLS_CA_CERT, 'base64').toString('utf8') } : {}),
  };
}

/**
 * MongoDB's part of the SaaS TLS rule, on the raw environment. It names MONGO_PARAMETERS, where
 * an operator turns TLS on (`tls=true`); `mongodb+srv` in MONGO_URI satisfies it too.
 */
export function mongoTlsRequirement(env: Readonly<Record<string, string | undefined>>, configured: boolean): TlsRequirement {
  return { variable: 'MONGO_PARAMETERS', configured, tls: mongoUsesTls(env.MONGO_URI, env.MONGO_PARAMETERS) };
}
