import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { exitOf, freePort, waitForPort } from './processes';

const HAPROXY = process.env.CHAOS_HAPROXY ?? '/usr/sbin/haproxy';
const BACKEND = 'gateways';

/**
 * HAProxy in front of the gateways, as a cluster's load balancer: round robin, a server taken out after two failed
 * `GET /readyz` checks 500 ms apart (a draining gateway answers 503 there) and back in after two good ones; a request
 * whose connection could not be made goes to another server (nothing was sent). Spare slots start in maintenance
 * and are pointed at a new gateway through the runtime API, as service discovery would.
 */
export class HaproxyFront {
  private constructor(
    readonly url: string,
    private readonly socketPath: string,
    private readonly child: ChildProcess,
  ) {}

  static async start(options: { dir: string; servers: Array<{ name: string; port?: number }> }): Promise<HaproxyFront> {
    const port = await freePort();
    const socketPath = join(options.dir, 'haproxy.sock');
    const config = join(options.dir, 'haproxy.cfg');
    writeFileSync(
      config,
      [
        'global',
        `  stats socket ${socketPath} mode 600 level admin`,
        '  maxconn 4096',
        'defaults',
        '  mode http',
        '  timeout connect 1s',
        '  timeout client 30s',
        '  timeout server 30s',
        // A busy gateway's /readyz may take a moment; a dead one refuses the connection at once.
        '  timeout check 2s',
        '  retries 2',
        '  option redispatch 1',
        'frontend front',
        `  bind 127.0.0.1:${port}`,
        `  default_backend ${BACKEND}`,
        `backend ${BACKEND}`,
        '  balance roundrobin',
        '  option httpchk GET /readyz',
        '  http-check expect status 200',
        '  default-server inter 500 fall 2 rise 2',
        ...options.servers.map((s) => (s.port === undefined ? `  server ${s.name} 127.0.0.1:1 check disabled` : `  server ${s.name} 127.0.0.1:${s.port} check`)),
        '',
      ].join('\n'),
    );
    const child = spawn(HAPROXY, ['-db', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr?.resume();
    try {
      await waitForPort(port, 10_000, child);
    } catch (err) {
      child.kill('SIGKILL');
      throw err;
    }
    return new HaproxyFront(`http://127.0.0.1:${port}`, socketPath, child);
  }

  /** Points a slot at a gateway's port and takes it out of maintenance; the health checks bring it in. */
  async enable(server: string, port: number): Promise<void> {
    await this.command(`set server ${BACKEND}/${server} addr 127.0.0.1 port ${port}`);
    await this.command(`set server ${BACKEND}/${server} state ready`);
  }

  /** Puts a slot in maintenance (its gateway is gone for good: a pod deleted from the endpoints). */
  async disable(server: string): Promise<void> {
    await this.command(`set server ${BACKEND}/${server} state maint`);
  }

  /** Whether HAProxy's checks consider the server up. */
  async isUp(server: string): Promise<boolean> {
    const stat = await this.command('show stat');
    const line = stat.split('\n').find((l) => l.startsWith(`${BACKEND},${server},`));
    // The 18th field of `show stat`'s CSV is the status (UP, DOWN, MAINT, …).
    return line?.split(',')[17]?.startsWith('UP') ?? false;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await exitOf(this.child);
  }

  /** One runtime API command over the admin socket; its answer. */
  private command(line: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(this.socketPath);
      let out = '';
      socket.on('data', (d: Buffer) => (out += d.toString('utf8')));
      socket.on('end', () => resolve(out));
      socket.on('error', reject);
      socket.end(`${line}\n`);
    });
  }
}
