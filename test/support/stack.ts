import { appendFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { loadConfig, type Config } from '../../src/config';
import { createLogger } from '../../src/logger';
import { createGateway, type Gateway, type GatewayDeps } from '../../src/server';
import { SANDBOX_CREDENTIALS, startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox';

export interface GraphQLResponse<D = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: {
    data?: D | null;
    errors?: Array<{ message: string; path?: Array<string | number>; extensions?: Record<string, unknown> }>;
  };
}

export interface Stack {
  url: string;
  sandbox: Sandbox;
  gateway: Gateway;
  config: Config;
  /** Every JSON log line the gateway wrote. */
  logs: string[];
  /** POSTs a GraphQL request to the gateway with La Terrazza's credentials unless `headers` says otherwise. */
  gql<D = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<GraphQLResponse<D>>;
  close(): Promise<void>;
}

export const LA_TERRAZZA: Record<string, string> = { ...SANDBOX_CREDENTIALS.laTerrazza };
export const BISTRO_NORD: Record<string, string> = { ...SANDBOX_CREDENTIALS.bistroNord };

/** The `graphql request` log line of the request sent with `x-request-id: requestId`; throws when there is none. */
export function logLine(stack: Stack, requestId: string): Record<string, unknown> {
  const line = stack.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.requestId === requestId && l.msg === 'graphql request');
  if (!line) throw new Error(`no log line for ${requestId}`);
  return line;
}

/** The sandbox services and the gateway in front of them, both over real loopback HTTP on ephemeral ports. */
export async function startStack(
  options: { sandbox?: SandboxOptions; env?: Record<string, string>; explorer?: (sandbox: Sandbox) => GatewayDeps['explorer']; upstreamClock?: () => number } = {},
): Promise<Stack> {
  const sandbox = await startSandbox(options.sandbox ?? {});
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    RESERVATION_BASE_URL: sandbox.reservationUrl,
    POS_BASE_URL: sandbox.posUrl,
    ...options.env,
  });
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      // The whole run's log, checked for credentials at its end (test/support/globalTeardown.js).
      if (process.env.TABLEGRAPH_TEST_LOG) appendFileSync(process.env.TABLEGRAPH_TEST_LOG, chunk);
      done();
    },
  });
  const gateway = createGateway({ config, logger: createLogger({ level: config.logLevel, destination }), explorer: options.explorer?.(sandbox), upstreamClock: options.upstreamClock });
  await gateway.start();
  await new Promise<void>((resolve) => gateway.server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}`;

  return {
    url,
    sandbox,
    gateway,
    config,
    logs,
    async gql<D>(query: string, variables?: Record<string, unknown>, headers: Record<string, string> = LA_TERRAZZA) {
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query, variables }),
      });
      return { status: res.status, headers: res.headers, body: (await res.json()) as GraphQLResponse<D>['body'] };
    },
    async close() {
      await gateway.stop();
      await sandbox.close();
    },
  };
}
