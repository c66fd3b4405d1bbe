import { randomUUID } from 'node:crypto';
import { getConnectionToken } from '@nestjs/mongoose';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Connection, mongo } from 'mongoose';
import { loadManagerConfig, type ManagerConfig } from '../config/manager.config';
import { createManagerApp } from '../http/http-app';
import { managerTestEnv } from './manager-test-env';

export interface InjectOptions {
  readonly headers?: Record<string, string>;
  readonly query?: Record<string, string>;
  /** An object is sent as JSON with `application/json`; a string is sent as is. */
  readonly body?: unknown;
}

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, unknown>;
  readonly text: string;
  json<T = Record<string, unknown>>(): T;
}

/** A started Manager (not listening) that tests talk to through Fastify's inject. */
export class ManagerHarness {
  private constructor(
    readonly app: NestFastifyApplication,
    readonly config: ManagerConfig,
    readonly env: Record<string, string>,
  ) {}

  /** `env` overrides the test environment; `redisKeyPrefix` defaults to a fresh one. */
  static async start(mongoUri: string, env: Record<string, string> = {}, redisKeyPrefix = `it:${randomUUID()}:`): Promise<ManagerHarness> {
    const fullEnv = managerTestEnv(mongoUri, env);
    const config = loadManagerConfig(fullEnv);
    const app = await createManagerApp(config, { logger: false, redisKeyPrefix });
    return new ManagerHarness(app, config, fullEnv);
  }

  async request(method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT', url: string, options: InjectOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    let payload: string | undefined;
    if (typeof options.body === 'string') payload = options.body;
    else if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await this.app.inject({ method, url, headers, ...(options.query ? { query: options.query } : {}), ...(payload !== undefined ? { payload } : {}) });
    return {
      status: res.statusCode,
      headers: res.headers,
      text: res.body,
      json: <T>() => JSON.parse(res.body) as T,
    };
  }

  /** A collection of the Manager's database, for seeding and inspecting documents. */
  collection(name: 'connection' | 'job'): mongo.Collection {
    return this.app.get<Connection>(getConnectionToken()).collection(name);
  }

  /** Creates a connection through the API and returns its response body. */
  async create(body: Record<string, unknown>, product = 'reporter'): Promise<Record<string, unknown>> {
    const res = await this.request('POST', '/v1/management/connections', { headers: { 'x-product-name': product }, body });
    if (res.status !== 201) throw new Error(`create answered ${res.status}: ${res.text}`);
    return res.json();
  }

  close(): Promise<void> {
    return this.app.close();
  }
}

/** A valid create body for a loopback PostgreSQL (trust auth) unless overridden. */
export function aPostgresConnection(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    configName: `pg-${randomUUID().slice(0, 8)}`,
    type: 'POSTGRESQL',
    host: '127.0.0.1',
    port: 5432,
    databaseName: 'test',
    userName: 'postgres',
    password: 'not-needed-with-trust',
    ...overrides,
  };
}
