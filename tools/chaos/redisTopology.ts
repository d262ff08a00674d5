import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Redis from 'ioredis';
import { exitOf, freePorts, waitForPort } from './processes';

/** The name the Sentinels monitor the primary under (REDIS_SENTINEL_NAME). */
export const SENTINEL_NAME = 'tablegraph';

export interface RedisTopologyOptions {
  /** A directory of the run's own: each server's working directory and the Sentinels' config files go there. */
  dir: string;
  /** requirepass and masterauth of the data nodes (the Sentinels get it as auth-pass). */
  password: string;
  /** Sentinel's down-after-milliseconds. Default 1000. */
  downAfterMs?: number;
  /** Sentinel's failover-timeout. Default 5000. */
  failoverTimeoutMs?: number;
}

/**
 * A Redis primary, one replica and three Sentinels (quorum 2), real processes on loopback, without persistence: what
 * a small HA Redis is. The primary can be killed (Sentinel promotes the replica) and brought back as a replica of
 * whichever node Sentinel names, as an operator's restart script or a Kubernetes init container does.
 */
export class RedisTopology {
  readonly primaryPort: number;
  readonly replicaPort: number;
  readonly sentinelPorts: number[];
  private readonly nodes = new Map<number, ChildProcess>();
  private readonly sentinels: Array<{ port: number; process: ChildProcess }> = [];

  private constructor(private readonly options: RedisTopologyOptions, ports: { primary: number; replica: number; sentinels: number[] }) {
    this.primaryPort = ports.primary;
    this.replicaPort = ports.replica;
    this.sentinelPorts = ports.sentinels;
  }

  static async start(options: RedisTopologyOptions): Promise<RedisTopology> {
    const [primary, replica, ...sentinels] = await freePorts(5);
    const topology = new RedisTopology(options, { primary, replica, sentinels });
    try {
      await topology.startNode(topology.primaryPort);
      await topology.startNode(topology.replicaPort, topology.primaryPort);
      for (const port of topology.sentinelPorts) await topology.startSentinel(port);
      await topology.waitUntilWatched();
      return topology;
    } catch (err) {
      await topology.stop();
      throw err;
    }
  }

  /** REDIS_SENTINELS. */
  get sentinelsSetting(): string {
    return this.sentinelPorts.map((p) => `127.0.0.1:${p}`).join(',');
  }

  /** REDIS_URL of the first primary (what a gateway without Sentinel support keeps using). */
  get primaryUrl(): string {
    return `redis://:${this.options.password}@127.0.0.1:${this.primaryPort}/0`;
  }

  /** SIGKILL of a data node (the primary, in the run). */
  kill(port: number): void {
    this.nodes.get(port)?.kill('SIGKILL');
  }

  /** The primary's port as the Sentinels (their majority) name it now; undefined when they do not agree. */
  async currentPrimary(): Promise<number | undefined> {
    const answers = await Promise.all(this.sentinelPorts.map((port) => askSentinel(port, ['get-master-addr-by-name', SENTINEL_NAME])));
    const ports = answers.map((a) => (Array.isArray(a) ? Number(a[1]) : undefined)).filter((p): p is number => p !== undefined);
    const votes = new Map<number, number>();
    for (const p of ports) votes.set(p, (votes.get(p) ?? 0) + 1);
    return [...votes].find(([, n]) => n >= 2)?.[0];
  }

  /** Waits until the Sentinels name a primary other than `old`; resolves with its port. */
  async waitForPromotion(old: number, timeoutMs: number): Promise<number> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      const now = await this.currentPrimary();
      if (now !== undefined && now !== old) return now;
      await sleep(100);
    }
    throw new Error(`Sentinel promoted no replica within ${timeoutMs} ms`);
  }

  /** Starts a data node again on its port, as a replica of the primary the Sentinels name. */
  async restartAsReplica(port: number): Promise<void> {
    const primary = await this.currentPrimary();
    if (primary === undefined || primary === port) throw new Error('the Sentinels name no other primary to replicate');
    await this.startNode(port, primary);
  }

  async stop(): Promise<void> {
    const all = [...this.sentinels.map((s) => s.process), ...this.nodes.values()];
    for (const child of all) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(all.map(exitOf));
  }

  private async startNode(port: number, replicaOf?: number): Promise<void> {
    const { password } = this.options;
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.options.dir, '--dbfilename', `dump-${port}.rdb`];
    args.push('--requirepass', password, '--masterauth', password);
    if (replicaOf !== undefined) args.push('--replicaof', '127.0.0.1', String(replicaOf));
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    this.nodes.set(port, child);
    await waitForPort(port, 10_000, child);
  }

  private async startSentinel(port: number): Promise<void> {
    const file = join(this.options.dir, `sentinel-${port}.conf`);
    // Sentinel rewrites its own file (what it learnt of replicas and peers), so each has one of its own.
    writeFileSync(
      file,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${this.options.dir}`,
        `sentinel monitor ${SENTINEL_NAME} 127.0.0.1 ${this.primaryPort} 2`,
        `sentinel auth-pass ${SENTINEL_NAME} ${this.options.password}`,
        `sentinel down-after-milliseconds ${SENTINEL_NAME} ${this.options.downAfterMs ?? 1000}`,
        `sentinel failover-timeout ${SENTINEL_NAME} ${this.options.failoverTimeoutMs ?? 5000}`,
        `sentinel parallel-syncs ${SENTINEL_NAME} 1`,
        '',
      ].join('\n'),
    );
    const child = spawn('redis-sentinel', [file], { stdio: 'ignore' });
    this.sentinels.push({ port, process: child });
    await waitForPort(port, 10_000, child);
  }

  /** Until every Sentinel knows the replica and both other Sentinels: only then can they agree on a failover. */
  private async waitUntilWatched(): Promise<void> {
    const until = Date.now() + 30_000;
    let seen: string[] = [];
    while (Date.now() < until) {
      const views = await Promise.all(
        this.sentinelPorts.map(async (port) => {
          const master = await askSentinel(port, ['master', SENTINEL_NAME]);
          return Array.isArray(master) ? fieldsOf(master as string[]) : {};
        }),
      );
      seen = views.map((f) => `${f.flags} with ${f['num-slaves']} replicas and ${f['num-other-sentinels']} other Sentinels`);
      if (views.every((f) => Number(f['num-slaves']) >= 1 && Number(f['num-other-sentinels']) >= 2 && f.flags === 'master')) return;
      await sleep(200);
    }
    throw new Error(`the Sentinels did not see the replica and each other within 30 s: ${seen.join('; ')}`);
  }
}

/** One SENTINEL command on its own short connection; undefined when the Sentinel does not answer. */
async function askSentinel(port: number, args: string[]): Promise<unknown> {
  const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: 500, commandTimeout: 1000, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.call('SENTINEL', ...args);
  } catch {
    return undefined;
  } finally {
    client.disconnect();
  }
}

function fieldsOf(flat: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]] = flat[i + 1];
  return out;
}
