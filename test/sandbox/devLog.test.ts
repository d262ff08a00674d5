import { SAMPLE } from '../../src/sandbox';
import { devLogDestination } from '../../src/sandbox/devLog';
import { LA_TERRAZZA, startStack, type Stack } from '../support/stack';

const NOW = new Date('2026-11-21T12:00:00Z');

/** The lines `npm run dev` would print for the given JSON log lines, at `level`. */
function devOutput(jsonLines: string[], level: string): string {
  let text = '';
  const destination = devLogDestination({ level, colorize: false, write: (t) => (text += t) });
  for (const line of jsonLines) destination.write(`${line}\n`);
  return text;
}

describe('devLogDestination', () => {
  let stack: Stack;
  let dayLine: string;
  beforeAll(async () => {
    stack = await startStack({ sandbox: { now: NOW } });
    const date = SAMPLE.laTerrazza.busyDate(stack.sandbox.state);
    await stack.gql(`query DayView($date: Date!) { reservations(date: $date) { nodes { id check { id alias } } } }`, { date }, { ...LA_TERRAZZA, 'x-request-id': 'dev-log-1' });
    dayLine = stack.logs.find((l) => l.includes('"requestId":"dev-log-1"') && l.includes('"graphql request"'))!;
  });
  afterAll(() => stack.close());

  it('writes a day view as one line: operation, status, duration, upstream calls counted by service', () => {
    const out = devOutput([dayLine], 'info');
    expect(out.trimEnd().split('\n')).toHaveLength(1);
    const checks = SAMPLE.laTerrazza.busyDateDistinctCheckCount;
    expect(out).toMatch(new RegExp(`INFO: DayView 200 \\d+ ms · ${checks + 1} upstream \\(1 reservation, ${checks} pos\\)\\n$`));
  });

  it('lists each upstream call on its own line at LOG_LEVEL=debug', () => {
    const lines = devOutput([dayLine], 'debug').trimEnd().split('\n');
    const calls = (JSON.parse(dayLine) as { upstreamCalls: unknown[] }).upstreamCalls;
    expect(lines.filter((l) => /^\s+pos GET \/checks\/:id 200 [\d.]+ ms$/.test(l))).toHaveLength(calls.length - 1);
    expect(lines.some((l) => /^\s+reservation GET \/v1\/reservations 200 [\d.]+ ms$/.test(l))).toBe(true);
  });

  it('says how a request failed and who sent it', () => {
    const line = JSON.stringify({ level: 30, time: Date.now(), msg: 'graphql request', operationName: null, httpStatus: 429, durationMs: 1.2, outcome: 'error', errorCodes: ['RATE_LIMITED'], client: 'demo-partner', upstreamCalls: [] });
    expect(devOutput([line], 'info')).toContain('(no operation) 429 1 ms · 0 upstream · error RATE_LIMITED · client demo-partner');
  });

  it('leaves every other line to pino-pretty', () => {
    const out = devOutput([JSON.stringify({ level: 30, time: Date.now(), service: 'tablegraph', port: 4000, msg: 'gateway listening' })], 'info');
    expect(out).toMatch(/INFO: gateway listening\n\s+port: 4000/);
  });

  it('leaves the JSON log of production whole: one line with every upstream call', () => {
    const line = JSON.parse(dayLine) as { msg: string; operationName: string; upstreamCalls: Array<Record<string, unknown>> };
    expect(line).toMatchObject({ msg: 'graphql request', operationName: 'DayView', httpStatus: 200, service: 'tablegraph' });
    expect(line.upstreamCalls).toHaveLength(SAMPLE.laTerrazza.busyDateDistinctCheckCount + 1);
    expect(Object.keys(line.upstreamCalls[0]).sort()).toEqual(['durationMs', 'method', 'route', 'service', 'source', 'status']);
  });
});
