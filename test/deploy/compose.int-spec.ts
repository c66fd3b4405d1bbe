/**
 * The local stack in docker/compose.yaml, checked without a container engine: docker-compose parses
 * and interpolates the file (`config`), and the RabbitMQ definitions file is imported into a real
 * broker (a throwaway vhost on the machine's RabbitMQ), where the apps' own topology assertion must
 * accept every object it declared. Images are not built here: no base image can be pulled.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type ChannelModel } from 'amqplib';
import { parse } from 'yaml';
import { assertFetcherTopology, deriveSubKeys, FETCHER_TOPOLOGY, sealEnvelope } from '@fetcher/platform';
import { readTenantsFile, startTenantManagerTestServer, type TenantManagerTestServer } from '@fetcher/tenant-manager-test-server';

const ROOT = join(__dirname, '..', '..');
const COMPOSE_FILE = join(ROOT, 'docker', 'compose.yaml');
const DEFINITIONS_FILE = join(ROOT, 'docker', 'rabbitmq', 'definitions.json');
const WORK_QUEUE = 'fetcher.extract-external-data.queue';
const TENANTS_FILE = join(ROOT, 'docker', 'multi-tenant', 'tenants.json');
/** The services of the `multi-tenant` profile: they start only with `--profile multi-tenant`. */
const MT_SERVICES = ['manager-mt', 'tenant-manager', 'tenant-provision', 'worker-mt'];

interface ComposeService {
  profiles?: string[];
  command?: string[];
  ports?: string[];
  image?: string;
  build?: { target?: string };
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  read_only?: boolean;
  cap_drop?: string[];
  security_opt?: string[];
  tmpfs?: string[];
  volumes?: ({ source?: string; target?: string; type?: string } | string)[];
}

interface Definitions {
  users: { name: string; password_hash: string; hashing_algorithm: string; tags: string[] }[];
  vhosts: { name: string }[];
  permissions: { user: string; vhost: string }[];
  exchanges: { name: string; vhost: string; type: string; durable: boolean; arguments: Record<string, unknown> }[];
  queues: { name: string; vhost: string; durable: boolean; arguments: Record<string, unknown> }[];
  bindings: { source: string; vhost: string; destination: string; routing_key: string }[];
}

/** The binary the test needs; a missing one is a failure with the install command, never a skip. */
function dockerCompose(): string {
  const found = spawnSync('sh', ['-c', 'command -v docker-compose'], { encoding: 'utf8' });
  if (found.status !== 0) {
    throw new Error('docker-compose is not installed: apt-get update && apt-get install -y docker-compose (.ci/services does this)');
  }
  return found.stdout.trim();
}

describe('docker/compose.yaml', () => {
  let work: string;
  let emptyEnvFile: string;
  let binary: string;
  let services: Record<string, ComposeService>;
  const key = randomBytes(32).toString('base64');

  /** `docker-compose ... config` with only the variables given: a developer's docker/.env is not read. */
  function compose(args: string[], env: Record<string, string>) {
    return spawnSync(binary, ['--env-file', emptyEnvFile, '-f', COMPOSE_FILE, ...args], {
      cwd: work,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, ...env },
    });
  }

  beforeAll(() => {
    binary = dockerCompose();
    work = mkdtempSync(join(tmpdir(), 'fetcher-compose-'));
    emptyEnvFile = join(work, 'empty.env');
    writeFileSync(emptyEnvFile, '');
    const rendered = compose(['config'], { APP_ENC_KEY: key });
    if (rendered.status !== 0) throw new Error(`docker-compose config failed: ${rendered.stderr}`);
    services = (parse(rendered.stdout) as { services: Record<string, ComposeService> }).services;
  });

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('passes `docker-compose config -q` once APP_ENC_KEY is given', () => {
    const result = compose(['config', '-q'], { APP_ENC_KEY: key });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('refuses to start without APP_ENC_KEY, and says where to put one', () => {
    const result = compose(['config', '-q'], {});
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('APP_ENC_KEY is not set; see docker/README.md');
  });

  it('never holds a key itself: the only APP_ENC_KEY value is the interpolated variable', () => {
    const text = readFileSync(COMPOSE_FILE, 'utf8');
    const assignments = text.split('\n').filter((line) => /^\s*APP_ENC_KEY\s*:/.test(line));
    expect(assignments).toHaveLength(1);
    expect(assignments[0]).toMatch(/APP_ENC_KEY: \$\{APP_ENC_KEY:\?/);
    const example = readFileSync(join(ROOT, 'docker', '.env.example'), 'utf8');
    expect(example.split('\n').filter((line) => line.startsWith('APP_ENC_KEY='))).toEqual([]);
    expect(services.manager.environment?.APP_ENC_KEY).toBe(key);
  });

  it('runs every dependency, the init steps and the two sample datasources', () => {
    expect(Object.keys(services).filter((name) => !services[name].profiles).sort()).toEqual(
      ['manager', 'minio', 'minio-init', 'mongo', 'mongo-init', 'rabbitmq', 'sample-mysql', 'sample-postgres', 'valkey', 'worker'].sort(),
    );
    expect(services.mongo.image).toMatch(/^mongo:7/);
    const longRunning = ['mongo', 'rabbitmq', 'valkey', 'minio', 'sample-postgres', 'sample-mysql', 'manager', 'worker'];
    expect(longRunning.filter((name) => (services[name].healthcheck?.test.length ?? 0) < 2)).toEqual([]);
    // The init steps wait for a healthy server, and the apps wait for the init steps to finish.
    expect(services['mongo-init'].depends_on).toEqual({ mongo: { condition: 'service_healthy' } });
    expect(services['minio-init'].depends_on).toEqual({ minio: { condition: 'service_healthy' } });
  });

  it('starts the Manager and the Worker only on healthy dependencies, from the shared Dockerfile', () => {
    expect(services.manager.build?.target).toBe('manager');
    expect(services.worker.build?.target).toBe('worker');
    expect(services.manager.depends_on).toMatchObject({
      mongo: { condition: 'service_healthy' },
      'mongo-init': { condition: 'service_completed_successfully' },
      rabbitmq: { condition: 'service_healthy' },
      valkey: { condition: 'service_healthy' },
    });
    expect(services.worker.depends_on).toMatchObject({
      mongo: { condition: 'service_healthy' },
      'mongo-init': { condition: 'service_completed_successfully' },
      rabbitmq: { condition: 'service_healthy' },
      'minio-init': { condition: 'service_completed_successfully' },
      manager: { condition: 'service_healthy' },
    });
    for (const app of ['manager', 'worker']) {
      const conditions = Object.values(services[app].depends_on ?? {}).map((d) => d.condition);
      expect(conditions.filter((c) => c !== 'service_healthy' && c !== 'service_completed_successfully')).toEqual([]);
      expect(services[app].read_only).toBe(true);
      expect(services[app].cap_drop).toEqual(['ALL']);
      expect(services[app].security_opt).toContain('no-new-privileges:true');
    }
    expect(services.worker.tmpfs).toContain('/var/spool/fetcher:uid=1000,gid=1000,mode=0700');
    expect(services.worker.environment?.RESULT_SPOOL_DIR).toBe('/var/spool/fetcher');
  });

  it('gives both apps the configuration they refuse to start without', () => {
    for (const app of ['manager', 'worker']) {
      const env = services[app].environment ?? {};
      expect(env).toMatchObject({ MONGO_NAME: 'fetcher', RABBITMQ_FETCHER_WORK_QUEUE: WORK_QUEUE, APP_ENC_KEY_VERSION: '1' });
      // Each internal datasource points at a service of this file.
      for (const group of ['SAMPLE_PG', 'SAMPLE_MYSQL']) {
        expect(Object.keys(services)).toContain(env[`DATASOURCE_${group}_HOST`]);
      }
      // Credentials come in pairs (a half-set pair refuses startup).
      expect(Boolean(env.RABBITMQ_DEFAULT_USER)).toBe(Boolean(env.RABBITMQ_DEFAULT_PASS));
    }
    expect(services.manager.environment?.SERVER_ADDRESS).toBe(':4006');
    expect(services.worker.environment).toMatchObject({
      HEALTH_PORT: '4007',
      STREAMING_ENABLED: 'true',
      RABBITMQ_JOB_EVENTS_EXCHANGE: FETCHER_TOPOLOGY.defaultEventsExchange,
      OBJECT_STORAGE_BUCKET: 'fetcher-results',
      OBJECT_STORAGE_ENDPOINT: 'http://minio:9000',
    });
    // The bucket the init step creates is the one the Worker writes to.
    expect(JSON.stringify(services['minio-init'])).toContain('local/fetcher-results');
  });

  it('declares in its RabbitMQ definitions the names and arguments the apps use', () => {
    const definitions = JSON.parse(readFileSync(DEFINITIONS_FILE, 'utf8')) as Definitions;
    const queue = (name: string) => definitions.queues.find((q) => q.name === name);
    expect(queue(WORK_QUEUE)?.arguments).toEqual({
      'x-dead-letter-exchange': FETCHER_TOPOLOGY.deadLetterExchange,
      'x-dead-letter-routing-key': FETCHER_TOPOLOGY.deadLetterRoutingKey,
    });
    expect(queue(FETCHER_TOPOLOGY.deadLetterQueue)?.arguments).toEqual({
      'x-message-ttl': FETCHER_TOPOLOGY.deadLetterTtlMs,
      'x-max-length': FETCHER_TOPOLOGY.deadLetterMaxLength,
    });
    expect(definitions.exchanges.map((e) => [e.name, e.type, e.durable])).toEqual([
      [FETCHER_TOPOLOGY.deadLetterExchange, 'direct', true],
      [FETCHER_TOPOLOGY.defaultEventsExchange, 'topic', true],
    ]);
    expect(definitions.bindings).toContainEqual(expect.objectContaining({
      source: FETCHER_TOPOLOGY.deadLetterExchange,
      destination: FETCHER_TOPOLOGY.deadLetterQueue,
      routing_key: FETCHER_TOPOLOGY.deadLetterRoutingKey,
    }));
    expect(services.manager.environment?.RABBITMQ_DEFAULT_USER).toBe(definitions.users[0].name);
  });
});

describe('the multi-tenant profile of docker/compose.yaml', () => {
  let work: string;
  let services: Record<string, ComposeService>;
  let server: TenantManagerTestServer | undefined;

  function compose(args: string[]) {
    return spawnSync(dockerCompose(), ['--env-file', join(work, 'empty.env'), '-f', COMPOSE_FILE, ...args], {
      cwd: work,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, APP_ENC_KEY: randomBytes(32).toString('base64') },
    });
  }

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'fetcher-compose-mt-'));
    writeFileSync(join(work, 'empty.env'), '');
    const rendered = compose(['--profile', 'multi-tenant', 'config']);
    if (rendered.status !== 0) throw new Error(`docker-compose config failed: ${rendered.stderr}`);
    services = (parse(rendered.stdout) as { services: Record<string, ComposeService> }).services;
  });

  afterAll(async () => {
    await server?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('passes `docker-compose --profile multi-tenant config -q`, and keeps its services out of a plain `up`', () => {
    const result = compose(['--profile', 'multi-tenant', 'config', '-q']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(Object.keys(services).filter((name) => services[name].profiles?.includes('multi-tenant')).sort()).toEqual(MT_SERVICES);
    // Published on their own host ports, beside the single-tenant pair.
    const published = Object.values(services).flatMap((service) => (service.ports ?? []).map(String));
    expect(new Set(published).size).toBe(published.length);
  });

  it('runs the Manager and the Worker in multi-tenant mode against the tenant-manager test server', () => {
    const file = JSON.parse(readFileSync(TENANTS_FILE, 'utf8')) as { apiKey: string };
    const command = services['tenant-manager'].command ?? [];
    expect(command.slice(0, 3)).toEqual(['npm', 'run', 'tenant-manager:test-server']);
    const port = command[command.indexOf('--port') + 1];
    expect(command[command.indexOf('--host') + 1]).toBe('0.0.0.0');
    expect(JSON.stringify(services['tenant-manager'].volumes)).toContain(command[command.indexOf('--tenants') + 1]);
    for (const app of ['manager-mt', 'worker-mt']) {
      const env = services[app].environment ?? {};
      expect(env).toMatchObject({
        MULTI_TENANT_ENABLED: 'true',
        ENV_NAME: 'staging',
        MULTI_TENANT_URL: `http://tenant-manager:${port}`,
        MULTI_TENANT_ALLOW_INSECURE_HTTP: 'true',
        MULTI_TENANT_SERVICE_API_KEY: file.apiKey,
        MONGO_NAME: 'fetcher',
      });
      expect(Object.keys(services)).toContain(env.MULTI_TENANT_REDIS_HOST);
      expect(services[app].depends_on).toMatchObject({
        'tenant-manager': { condition: 'service_healthy' },
        'tenant-provision': { condition: 'service_completed_successfully' },
      });
      expect(services[app].read_only).toBe(true);
    }
    expect(services['manager-mt'].environment).toHaveProperty('MULTI_TENANT_JWT_PUBLIC_KEY');
    expect(services['worker-mt'].environment?.RESULT_SPOOL_DIR).toBe('/var/spool/fetcher');
    expect(services['tenant-provision'].depends_on).toMatchObject({ rabbitmq: { condition: 'service_healthy' }, 'mongo-init': { condition: 'service_completed_successfully' } });
  });

  it('has a tenants file with two active tenants on their own vhost and database, in this file\'s MongoDB and RabbitMQ', async () => {
    const tenants = await readTenantsFile(TENANTS_FILE);
    const common = services['manager-mt'].environment ?? {};
    const active = Object.entries(tenants.tenants).filter(([, tenant]) => tenant.status === 'active');
    expect(active.map(([id]) => id)).toEqual(['tenant-a', 'tenant-b']);
    const seen = { vhosts: new Set<string>(), databases: new Set<string>() };
    for (const [, tenant] of active) {
      const fetcher = tenant.services.fetcher as { databases: { fetcher: { mongodb: { uri: string; database: string } } }; messaging: { rabbitmq: Record<string, string | number> } };
      const mongo = fetcher.databases.fetcher.mongodb;
      const rabbitmq = fetcher.messaging.rabbitmq;
      expect(Object.keys(services)).toContain(new URL(mongo.uri).hostname);
      expect(Object.keys(services)).toContain(rabbitmq.host);
      // The broker user of definitions.json, with the password the single-tenant apps use.
      expect([rabbitmq.username, rabbitmq.password]).toEqual([common.RABBITMQ_DEFAULT_USER, common.RABBITMQ_DEFAULT_PASS]);
      seen.vhosts.add(String(rabbitmq.vhost));
      seen.databases.add(mongo.database);
    }
    expect(seen.vhosts.size).toBe(2);
    expect(seen.databases.size).toBe(2);
    expect([...seen.vhosts]).not.toContain('/');

    // The test server serves the file as the services will read it.
    server = await startTenantManagerTestServer({ tenants });
    const get = (path: string) => fetch(`${server!.url}${path}`, { headers: { 'x-api-key': tenants.apiKey } });
    const list = await get('/v1/tenants/active?service=fetcher');
    expect(list.status).toBe(200);
    expect(((await list.json()) as { id: string }[]).map((t) => t.id).sort()).toEqual(['tenant-a', 'tenant-b']);
    const config = await get('/v1/tenants/tenant-a/associations/fetcher/connections');
    expect(((await config.json()) as { messaging: { rabbitmq: { vhost: string } } }).messaging.rabbitmq.vhost).toBe('tenant-a');
  });
});

describe('docker/rabbitmq/definitions.json imported into a real RabbitMQ', () => {
  const suffix = randomUUID();
  const vhost = `fetcher-deploy-${suffix}`;
  const user = `fetcher-deploy-${suffix}`;
  let work: string | undefined;
  let imported = false;
  let connection: ChannelModel | undefined;

  function rabbitmqctl(...args: string[]): string {
    return execFileSync('rabbitmqctl', ['-q', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  }

  beforeAll(() => {
    // The same file the broker imports at boot, moved into a throwaway vhost and user so the
    // machine's shared broker keeps no trace of it.
    const definitions = JSON.parse(readFileSync(DEFINITIONS_FILE, 'utf8')) as Definitions;
    const scoped: Definitions = {
      ...definitions,
      users: definitions.users.map((u) => ({ ...u, name: user, tags: [] })),
      vhosts: [{ name: vhost }],
      permissions: definitions.permissions.map((p) => ({ ...p, user, vhost })),
      exchanges: definitions.exchanges.map((e) => ({ ...e, vhost })),
      queues: definitions.queues.map((q) => ({ ...q, vhost })),
      bindings: definitions.bindings.map((b) => ({ ...b, vhost })),
    };
    // rabbitmqctl runs as the broker's own user (and its "-" for stdin does not work through the
    // wrapper), so the file must be readable by others.
    work = mkdtempSync(join(tmpdir(), 'fetcher-definitions-'));
    chmodSync(work, 0o755);
    const file = join(work, 'definitions.json');
    writeFileSync(file, JSON.stringify(scoped), { mode: 0o644 });
    rabbitmqctl('import_definitions', file);
    imported = true;
  });

  afterAll(async () => {
    await connection?.close();
    try {
      if (imported) rabbitmqctl('delete_vhost', vhost);
    } finally {
      if (imported) rabbitmqctl('delete_user', user);
      if (work) rmSync(work, { recursive: true, force: true });
    }
  });

  it('lets the compose user in with the password the apps are given, and the apps\' topology assertion accepts every object', async () => {
    // The password hash in the file matches RABBITMQ_DEFAULT_PASS of the compose file.
    connection = await connect(`amqp://${encodeURIComponent(user)}:fetcher-local-only@127.0.0.1:5672/${encodeURIComponent(vhost)}`);
    const channel = await connection.createChannel();
    // A single differing argument would make the broker answer 406 and close the channel.
    await assertFetcherTopology(channel, { workQueue: WORK_QUEUE, eventsExchange: FETCHER_TOPOLOGY.defaultEventsExchange });
    const dlq = await channel.checkQueue(FETCHER_TOPOLOGY.deadLetterQueue);
    expect(dlq.queue).toBe(FETCHER_TOPOLOGY.deadLetterQueue);
    // The event queues are bound: a completed event published to the exchange lands in its queue.
    channel.publish(FETCHER_TOPOLOGY.defaultEventsExchange, 'job.completed', Buffer.from('{}'));
    let delivered: unknown = false;
    for (let attempt = 0; attempt < 50 && delivered === false; attempt++) {
      delivered = await channel.get('fetcher.job.completed.queue', { noAck: true });
    }
    expect(delivered).not.toBe(false);
    await channel.close();
  });

  it('really compares arguments: asserting the dead-letter queue with another TTL is refused', async () => {
    connection ??= await connect(`amqp://${encodeURIComponent(user)}:fetcher-local-only@127.0.0.1:5672/${encodeURIComponent(vhost)}`);
    const channel = await connection.createChannel();
    channel.on('error', () => undefined);
    await expect(
      channel.assertQueue(FETCHER_TOPOLOGY.deadLetterQueue, { durable: true, arguments: { 'x-message-ttl': 1000, 'x-max-length': 10_000 } }),
    ).rejects.toMatchObject({ code: 406 });
  });
});

describe('docker/decrypt-result.cjs, the documented way to read a result', () => {
  const script = join(ROOT, 'docker', 'decrypt-result.cjs');
  const master = randomBytes(32);
  const keys = deriveSubKeys(master);
  const document = '{"sample_pg":{"customers":[{"id":1,"name":"Ada Lovelace"}]}}';
  // What the Worker stores: the platform's envelope under the storage sub-key, as base64 text.
  const stored = `${sealEnvelope(keys.storage, document)}\n`;
  const hmac = createHmac('sha256', keys.externalHmac).update(document).digest('hex');

  function decrypt(input: string, key: string, args: string[] = []) {
    return spawnSync(process.execPath, [script, ...args], { input, encoding: 'utf8', env: { PATH: process.env.PATH, APP_ENC_KEY: key } });
  }

  it('decrypts a stored result with APP_ENC_KEY and checks the job\'s HMAC', () => {
    expect(decrypt(stored, master.toString('base64'))).toMatchObject({ status: 0, stdout: document, stderr: '' });
    expect(decrypt(stored, master.toString('base64'), ['--hmac', hmac])).toMatchObject({ status: 0, stdout: document });
  });

  it('writes nothing when the key, the object or the HMAC is wrong', () => {
    expect(decrypt(stored, randomBytes(32).toString('base64'))).toMatchObject({ status: 1, stdout: '', stderr: expect.stringContaining('authentication failed') });
    const tampered = Buffer.from(stored.trim(), 'base64');
    tampered[20] ^= 1;
    expect(decrypt(tampered.toString('base64'), master.toString('base64'))).toMatchObject({ status: 1, stdout: '' });
    expect(decrypt(stored, master.toString('base64'), ['--hmac', '0'.repeat(64)])).toMatchObject({ status: 1, stdout: '', stderr: expect.stringContaining('HMAC mismatch') });
    expect(decrypt(stored, 'c2hvcnQ=')).toMatchObject({ status: 1, stderr: expect.stringContaining('APP_ENC_KEY must be') });
  });
});
