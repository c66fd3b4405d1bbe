import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { connect } from 'amqplib';

/**
 * A RabbitMQ node of the bench's own: its own node name, AMQP and distribution ports, data and log
 * directories, an empty config and no plugins, so nothing of the machine's node (rabbit@localhost,
 * 5672) is read or touched. Started in the foreground as a child process; stopped with rabbitmqctl
 * against its own node name. Run as root, the server script drops to the rabbitmq user, which must
 * own the directories.
 */
export class PrivateRabbit {
  readonly #dir = mkdtempSync(join(tmpdir(), 'fetcher-rabbit-'));
  readonly nodeName = `fetcherbench${process.pid}@localhost`;
  #child?: ChildProcess;

  constructor(readonly port: number, readonly distPort: number) {
    for (const sub of ['mnesia', 'log', 'home']) mkdirSync(join(this.#dir, sub));
    writeFileSync(join(this.#dir, 'rabbitmq.conf'), 'loopback_users.guest = true\n');
    writeFileSync(join(this.#dir, 'enabled_plugins'), '[].\n');
    writeFileSync(join(this.#dir, 'rabbitmq-env.conf'), '');
    if (process.getuid?.() === 0) {
      const uid = Number(execFileSync('id', ['-u', 'rabbitmq'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'rabbitmq'], { encoding: 'utf8' }).trim());
      const own = (path: string) => {
        chownSync(path, uid, gid);
        if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) own(join(path, entry));
      };
      own(this.#dir);
    }
  }

  get env(): Record<string, string> {
    return {
      PATH: process.env.PATH ?? '',
      HOME: join(this.#dir, 'home'),
      RABBITMQ_CONF_ENV_FILE: join(this.#dir, 'rabbitmq-env.conf'),
      RABBITMQ_NODENAME: this.nodeName,
      RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
      RABBITMQ_NODE_PORT: String(this.port),
      RABBITMQ_DIST_PORT: String(this.distPort),
      RABBITMQ_MNESIA_BASE: join(this.#dir, 'mnesia'),
      RABBITMQ_LOG_BASE: join(this.#dir, 'log'),
      RABBITMQ_CONFIG_FILE: join(this.#dir, 'rabbitmq.conf'),
      RABBITMQ_ADVANCED_CONFIG_FILE: join(this.#dir, 'advanced.config'),
      RABBITMQ_ENABLED_PLUGINS_FILE: join(this.#dir, 'enabled_plugins'),
      ERL_EPMD_ADDRESS: '127.0.0.1',
    };
  }

  /** Starts the node and resolves once it accepts an AMQP login; how long that took. */
  async start(limitMs = 180_000): Promise<number> {
    const started = Date.now();
    this.#child = spawn('rabbitmq-server', [], { env: this.env, stdio: 'ignore' });
    for (;;) {
      const model = await connect(`amqp://guest:guest@127.0.0.1:${this.port}`).catch(() => undefined);
      if (model) {
        await model.close();
        return Date.now() - started;
      }
      if (Date.now() - started > limitMs) throw new Error(`private RabbitMQ not up within ${limitMs} ms`);
      await delay(250);
    }
  }

  /** Stops the node (rabbitmqctl stop on its own name) and waits for the server process; how long it took. */
  async stop(): Promise<number> {
    const started = Date.now();
    const child = this.#child;
    this.#child = undefined;
    spawnSync('rabbitmqctl', ['-n', this.nodeName, 'stop'], { env: this.env, stdio: 'ignore', timeout: 120_000 });
    if (child && child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once('exit', resolve));
    return Date.now() - started;
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
