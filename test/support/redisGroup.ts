import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { eventually } from './gatewayProcess';
import { freePort } from './net';

/** One redis-server or redis-sentinel process of a group, on a loopback port. */
export interface RedisNode {
  port: number;
  /** SIGKILL (its death), SIGSTOP (a stall: connected, never answering) or SIGCONT. */
  signal(signal: 'SIGKILL' | 'SIGSTOP' | 'SIGCONT'): void;
  /** A plain client to this node (closed by the group's stop). */
  client(): Redis;
}

/**
 * A real primary, its replica and Sentinels watching them, as a Redis that fails over runs in production: started
 * by the test, on free ports, without persistence; `downAfterMs` kept small so a failover takes a second or two.
 */
export interface RedisGroup {
  /** The master name the Sentinels monitor. */
  name: string;
  password: string;
  primary: RedisNode;
  replica: RedisNode;
  sentinels: RedisNode[];
  /** REDIS_SENTINELS for these Sentinels. */
  sentinelsSetting: string;
  /** The port the Sentinels name as primary now. */
  currentPrimaryPort(): Promise<number>;
  stop(): Promise<void>;
}

const NAME = 'tablegraph-test';

export async function startRedisGroup(options: { sentinels?: number; downAfterMs?: number } = {}): Promise<RedisGroup> {
  const password = 'group-secret';
  const dir = mkdtempSync(join(tmpdir(), 'tablegraph-redis-group-'));
  const children: ChildProcess[] = [];
  const clients: Redis[] = [];
  const node = (port: number, child: ChildProcess, auth: string | undefined): RedisNode => {
    let client: Redis | undefined;
    return {
      port,
      signal: (signal) => {
        if (child.exitCode === null && child.signalCode !== 'SIGKILL') child.kill(signal);
      },
      client: () => {
        if (!client) {
          client = new Redis({ port, host: '127.0.0.1', password: auth, maxRetriesPerRequest: 1, commandTimeout: 2000, retryStrategy: () => 200 });
          client.on('error', () => undefined);
          clients.push(client);
        }
        return client;
      },
    };
  };
  const server = (port: number, extra: string[]) => {
    const base = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--requirepass', password, '--masterauth', password, '--dir', dir];
    const child = spawn('redis-server', [...base, ...extra], { stdio: 'ignore', env: process.env });
    children.push(child);
    return node(port, child, password);
  };
  const stop = async () => {
    for (const client of clients) client.disconnect();
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            // A stopped process is killed all the same.
            child.kill('SIGKILL');
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const primary = server(await freePort(), []);
    const replica = server(await freePort(), ['--replicaof', '127.0.0.1', String(primary.port)]);
    const downAfterMs = options.downAfterMs ?? 1000;
    const sentinels: RedisNode[] = [];
    const count = options.sentinels ?? 1;
    // A majority must agree the primary is down, as in production: with a quorum of one, Sentinels start failovers of
    // their own at once, split their votes, and wait out failover-timeout before trying again.
    const quorum = Math.floor(count / 2) + 1;
    for (let i = 0; i < count; i++) {
      const port = await freePort();
      const file = join(dir, `sentinel-${i}.conf`);
      writeFileSync(
        file,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${NAME} 127.0.0.1 ${primary.port} ${quorum}`,
          `sentinel auth-pass ${NAME} ${password}`,
          `sentinel down-after-milliseconds ${NAME} ${downAfterMs}`,
          `sentinel failover-timeout ${NAME} ${downAfterMs * 5}`,
          `sentinel parallel-syncs ${NAME} 1`,
          '',
        ].join('\n'),
      );
      const child = spawn('redis-sentinel', [file], { stdio: 'ignore', env: process.env });
      children.push(child);
      sentinels.push(node(port, child, undefined));
    }
    const group: RedisGroup = {
      name: NAME,
      password,
      primary,
      replica,
      sentinels,
      sentinelsSetting: sentinels.map((s) => `127.0.0.1:${s.port}`).join(','),
      async currentPrimaryPort() {
        const [, port] = (await sentinels[0].client().call('SENTINEL', 'get-master-addr-by-name', NAME)) as [string, string];
        return Number(port);
      },
      stop,
    };
    // Ready once the replica is in sync and every Sentinel knows it: only then can a failover promote it.
    const synced = await eventually(async () => /master_link_status:up/.test(await replica.client().info('replication').catch(() => '')), 15_000);
    const known = await eventually(async () => {
      for (const sentinel of sentinels) {
        const replicas = (await sentinel.client().call('SENTINEL', 'replicas', NAME).catch(() => [])) as string[][];
        if (!replicas.some((fields) => fields.includes(String(replica.port)) && !fields.join(' ').includes('disconnected'))) return false;
      }
      return true;
    }, 15_000);
    if (!synced || !known) throw new Error(`the Redis group did not come up (replica in sync: ${synced}, known to the Sentinels: ${known})`);
    return group;
  } catch (err) {
    await stop();
    throw err;
  }
}
