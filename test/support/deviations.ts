import { startStack, type GraphQLResponse, type Stack } from './stack';
import { sendJson, startScriptedServer, type ScriptedServer } from './upstreamServer';

/**
 * A fake upstream playing both services (POS and reservation read routes) with bodies the test sets, and the whole
 * gateway in front of it over real loopback HTTP: for the tests of answers that differ from the documents.
 */
export interface DeviationRig {
  stack: Stack;
  upstream: ScriptedServer;
  /** The body each route answers, by route template (`/checks/:id`, `/employees`, `/v1/reservations/:id`, `/v1/reservations`). */
  bodies: Map<string, unknown>;
  /** The counter `tablegraph_upstream_deviations_total` for one set of labels (0 when absent). */
  deviations(labels: { service: string; route: string; field: string; received: string }): Promise<number>;
  /** The gateway's warn lines about deviations, for one field and what came (and route, when given). */
  deviationLogs(field: string, received: string, route?: string): Array<Record<string, unknown>>;
  close(): Promise<void>;
}

const ROUTES: Array<[RegExp, string]> = [
  [/^\/checks\/[^/]+$/, '/checks/:id'],
  [/^\/employees$/, '/employees'],
  [/^\/v1\/reservations\/[^/]+$/, '/v1/reservations/:id'],
  [/^\/v1\/reservations$/, '/v1/reservations'],
];

export async function startDeviationRig(): Promise<DeviationRig> {
  const bodies = new Map<string, unknown>();
  const upstream = await startScriptedServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const route = ROUTES.find(([pattern]) => pattern.test(path))?.[1];
    if (route === undefined || !bodies.has(route)) return sendJson(res, 404, { errors: [{ message: 'Not found' }] });
    const body = bodies.get(route);
    // A string is sent as it is, as a service in maintenance sends HTML.
    if (typeof body === 'string') return void res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    sendJson(res, 200, body);
  });
  const stack = await startStack({ env: { POS_BASE_URL: upstream.url, RESERVATION_BASE_URL: upstream.url, LOG_LEVEL: 'warn', JIT_MIN_USES: '2' } });
  return {
    stack,
    upstream,
    bodies,
    async deviations(labels) {
      const text = await (await fetch(`${stack.url}/metrics`)).text();
      for (const line of text.split('\n')) {
        const m = /^tablegraph_upstream_deviations_total\{(.*)\} (\d+)$/.exec(line);
        if (!m) continue;
        const found = Object.fromEntries([...m[1].matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
        if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(m[2]);
      }
      return 0;
    },
    deviationLogs(field, received, route) {
      return stack.logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((l) => l.msg === 'upstream answer differs from the documents' && l.field === field && l.received === received && (route === undefined || l.route === route));
    },
    async close() {
      await stack.close();
      await upstream.close();
    },
  };
}

/** The value at a response path such as `["check", "items", 0, "notes"]`. */
export function at(data: unknown, path: ReadonlyArray<string | number>): unknown {
  let value = data;
  for (const step of path) value = value === null || value === undefined ? undefined : (value as Record<string | number, unknown>)[step];
  return value;
}

export type Errors = NonNullable<GraphQLResponse['body']['errors']>;

/** Marks a key to delete in a DeviationCase's `change`. */
export const DELETE = Symbol('delete');
type Step = string | number;

export interface DeviationCase {
  /** What kind of deviation, for the test's name. */
  kind: string;
  /** Paths in the upstream body and their new value (or DELETE). */
  change: Array<[Step[], unknown]>;
  /** The GraphQL selection under the root field. */
  select: string;
  /** Where the one error is expected; null when the reading serves the field as null without an error. */
  path: Step[] | null;
  /** The upstream field path and what came, as the metric and the log name them. */
  field: string;
  received: string;
  /** Response paths and the values they must still have. */
  siblings: Array<[Step[], unknown]>;
}

/** A deep copy of `body` with `change` applied. */
export function changed(body: unknown, change: DeviationCase['change']): unknown {
  const copy: unknown = structuredClone(body);
  for (const [path, value] of change) {
    const parent = at(copy, path.slice(0, -1)) as Record<Step, unknown>;
    const last = path[path.length - 1];
    if (value === DELETE) delete parent[last];
    else parent[last] = value;
  }
  return copy;
}

/**
 * Runs `query` twice against the rig (JIT_MIN_USES=2: the first run on graphql-js, the second compiled by graphql-jit)
 * and asserts what the issue asks of each deviation: the error's path, code and upstream naming (never the value),
 * the siblings' values, the metric counting both answers, one log line in all.
 */
export async function expectDeviation(
  rig: DeviationRig,
  c: DeviationCase,
  run: () => Promise<GraphQLResponse>,
  labels: { service: string; route: string },
): Promise<void> {
  const metric = { ...labels, field: c.field, received: c.received };
  const before = await rig.deviations(metric);
  for (let i = 0; i < 2; i++) {
    const res = await run();
    if (c.path === null) {
      expect(res.body.errors).toBeUndefined();
    } else {
      expect(res.body.errors).toHaveLength(1);
      const [error] = res.body.errors!;
      expect(error.path).toEqual(c.path);
      expect(error.extensions).toEqual({ code: 'UPSTREAM_BAD_RESPONSE', upstream: { service: labels.service, status: 200, field: c.field, received: c.received } });
      expect(error.message).toContain(`field ${c.field}: expected `);
      expect(at(res.body.data, c.path)).toBeNull();
      for (const [, value] of c.change) if (typeof value === 'string' && value.length > 2) expect(error.message).not.toContain(value);
    }
    for (const [path, value] of c.siblings) expect(at(res.body.data, path)).toEqual(value);
  }
  expect((await rig.deviations(metric)) - before).toBe(2);
  expect(rig.deviationLogs(c.field, c.received, labels.route)).toHaveLength(1);
  expect(rig.deviationLogs(c.field, c.received, labels.route)[0]).toMatchObject({ level: 40, upstream: labels.service });
}
