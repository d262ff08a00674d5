import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../support/gatewayProcess';
import { freePort } from '../support/net';
import { BISTRO_NORD, LA_TERRAZZA, startStack, type Stack } from '../support/stack';

const NGINX = '/usr/sbin/nginx';

/**
 * Debian's NGINX as the shared cache a deployment may put in front of the gateway (a CDN, a corporate proxy), set
 * up as carelessly as such caches are: every answer kept 10 minutes unless it says otherwise, POSTs cached too.
 * `/ignoring/` is the same cache told to ignore the gateway's caching headers: the control that shows the
 * danger is real.
 */
function nginxConfig(dir: string, port: number, gateway: string): string {
  const cache = `
      proxy_cache gateway;
      proxy_cache_methods GET HEAD POST;
      proxy_cache_key "$request_method$request_uri$request_body";
      proxy_cache_valid 200 10m;
      add_header X-Cache-Status $upstream_cache_status always;`;
  return `
daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  proxy_cache_path ${dir}/cache keys_zone=gateway:1m;
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass ${gateway};${cache}
    }
    location /ignoring/ {
      proxy_pass ${gateway}/;${cache}
      proxy_ignore_headers Cache-Control Expires Vary;
      proxy_hide_header Cache-Control;
    }
  }
}
`;
}

const STAFF = '{ employees(perPage: 3) { nodes { id firstName } } }';

describe('a shared cache in front of the gateway', () => {
  let stack: Stack;
  let nginx: ChildProcess;
  let dir: string;
  let cacheUrl: string;

  beforeAll(async () => {
    if (!existsSync(NGINX)) throw new Error(`No nginx at ${NGINX}: run \`bash tools/setup/testDeps.sh\` (npm test runs it first)`);
    stack = await startStack();
    dir = mkdtempSync(join(tmpdir(), 'tablegraph-nginx-'));
    const port = await freePort();
    writeFileSync(join(dir, 'nginx.conf'), nginxConfig(dir, port, stack.url));
    nginx = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], { stdio: 'ignore' });
    const listening = () => new Promise<boolean>((resolve) => connect(port, '127.0.0.1').once('connect', function (this: import('node:net').Socket) { this.destroy(); resolve(true); }).once('error', () => resolve(false)));
    if (!(await eventually(listening, 10_000))) throw new Error('nginx did not start');
    cacheUrl = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((resolve) => nginx.once('exit', resolve));
      nginx.kill('SIGTERM');
      await exited;
    }
    await stack?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const staffGet = (base: string, venue: Record<string, string>) =>
    fetch(`${base}/graphql?query=${encodeURIComponent(STAFF)}`, { headers: { ...venue, 'apollo-require-preflight': 'true' } });
  const staffPost = (base: string, venue: Record<string, string>) =>
    fetch(`${base}/graphql`, { method: 'POST', headers: { ...venue, 'content-type': 'application/json' }, body: JSON.stringify({ query: STAFF }) });

  it('never serves one venue\'s GET answer to another', async () => {
    const direct = { a: await (await staffGet(stack.url, LA_TERRAZZA)).text(), b: await (await staffGet(stack.url, BISTRO_NORD)).text() };
    expect(direct.a).not.toBe(direct.b);

    const a = await staffGet(cacheUrl, LA_TERRAZZA);
    expect(a.headers.get('cache-control')).toBe('private, no-cache');
    expect(await a.text()).toBe(direct.a);
    const b = await staffGet(cacheUrl, BISTRO_NORD);
    expect(b.headers.get('x-cache-status')).not.toBe('HIT');
    expect(await b.text()).toBe(direct.b);
    expect(await (await staffGet(cacheUrl, LA_TERRAZZA)).text()).toBe(direct.a);

    // The same cache ignoring the gateway's headers serves La Terrazza's staff to Bistro Nord.
    await staffGet(`${cacheUrl}/ignoring`, LA_TERRAZZA);
    const leaked = await staffGet(`${cacheUrl}/ignoring`, BISTRO_NORD);
    expect(leaked.headers.get('x-cache-status')).toBe('HIT');
    expect(await leaked.text()).toBe(direct.a);
  });

  it('never stores a POST answer', async () => {
    const first = await staffPost(cacheUrl, LA_TERRAZZA);
    expect(first.headers.get('cache-control')).toBe('no-store');
    await first.text();
    const again = await staffPost(cacheUrl, LA_TERRAZZA);
    expect(again.headers.get('x-cache-status')).not.toBe('HIT');
    await again.text();

    await (await staffPost(`${cacheUrl}/ignoring`, LA_TERRAZZA)).text();
    expect((await staffPost(`${cacheUrl}/ignoring`, LA_TERRAZZA)).headers.get('x-cache-status')).toBe('HIT');
  });
});
