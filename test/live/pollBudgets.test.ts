import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256Hex } from '../../src/sha256';
import { eventually } from '../support/gatewayProcess';
import { LIVE_DAY, sseSubscribe, startLiveUpstreams, type LiveUpstreams } from '../support/liveClient';
import { LA_TERRAZZA, startStack, type Stack } from '../support/stack';

const KEY = 'poll-budget-partner-key';
const BUDGET = 1000;

let upstreams: LiveUpstreams;
let stack: Stack;

beforeAll(async () => {
  upstreams = await startLiveUpstreams();
  const file = join(mkdtempSync(join(tmpdir(), 'tablegraph-poll-budgets-')), 'clients.yaml');
  writeFileSync(file, `clients:\n  - name: acme\n    audience: partner\n    keySha256: ${sha256Hex(KEY)}\n    policy: { upstreamCallsPerMinute: ${BUDGET} }\n`);
  stack = await startStack({ env: { RESERVATION_BASE_URL: upstreams.reservation.url, POS_BASE_URL: upstreams.pos.url, LIVE_POLL_SECONDS: '0.1', CLIENTS_FILE: file } });
});

afterAll(async () => {
  await stack.close();
  await upstreams.close();
});

describe('live polls and the upstream-call budget', () => {
  it('charges a subscription\'s poll reads to its client once, as they are read, and not again when it ends', async () => {
    const headers = { ...LA_TERRAZZA, 'X-Api-Key': KEY };
    const polls = async () => (await stack.gateway.metrics.registry.getSingleMetric('tablegraph_live_polls_total')!.get()).values.reduce((sum, v) => sum + v.value, 0);
    const subscription = sseSubscribe(stack.url, headers, { query: LIVE_DAY, variables: { date: '2026-11-21' } });
    expect(await eventually(async () => (await polls()) >= 5)).toBe(true);
    subscription.unsubscribe();
    const ended = () => stack.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'graphql request' && l.transport === 'sse');
    expect(await eventually(async () => ended() !== undefined)).toBe(true);
    const made = Number(ended()!.actualUpstreamCalls);
    expect(made).toBeGreaterThan(0);
    // A request that makes no upstream call reads where the budget stands.
    const response = await fetch(`${stack.url}/graphql`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
    const remaining = Number(/"upstream-calls";r=(\d+)/.exec(response.headers.get('ratelimit') ?? '')?.[1]);
    const charged = BUDGET - remaining;
    // Every read it was there for, once; at most one more read (in flight as it left) besides.
    expect(charged).toBeGreaterThanOrEqual(made);
    expect(charged).toBeLessThan(made * 2);
  });
});
