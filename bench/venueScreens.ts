import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { SAMPLE, SANDBOX_CREDENTIALS, type SandboxState } from '../src/sandbox';
import { cpuTimeMs, type Target } from './processes';
import { requestBody } from './operations';
import { scenarioRequest, type ScenarioRequest } from './scenarios';
import type { CallCounts } from './upstreams';

/** S4's shape: one venue's screens on a period, beside other venues' steady S1 traffic. */
export interface VenueScreensOptions {
  durationS: number;
  /** Screens of the one venue, each asking S2's query once per period. Default 40. */
  screens?: number;
  /** Clients of other venues asking S1 back to back. Default 10. */
  others?: number;
  /** Each screen's period. Default 2000 ms. */
  periodMs?: number;
  /** The staleness the screens accept (`Cache-Control: max-age`). Default 2 s. */
  maxAgeS?: number;
}

/** What one side did under S4. */
export interface VenueScreensSide {
  label: string;
  screenRequests: number;
  otherRequests: number;
  /** Upstream calls made with the screens' venue's credentials, per screen request (31 without sharing). */
  callsPerScreenRequest: number;
  /** Every upstream call per GraphQL request, both kinds of client together. */
  callsPerRequest: number;
  screenP50: number;
  screenP99: number;
  otherP50: number;
  otherP99: number;
  /** CPU time of the target's processes per GraphQL request. */
  cpuMsPerQuery: number;
}

/** The screens' request (S2's, with the staleness they accept) and the other venues' (S1 of Bistro Nord's open check). */
export function venueScreensRequests(state: SandboxState, maxAgeS: number): { screen: ScenarioRequest; other: ScenarioRequest } {
  const s2 = scenarioRequest('S2', state);
  return {
    screen: { ...s2, headers: { ...s2.headers, 'cache-control': `max-age=${maxAgeS}` } },
    other: {
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'application/json', ...SANDBOX_CREDENTIALS.bistroNord },
      body: requestBody('S1', { id: SAMPLE.bistroNord.openCheckId }),
    },
  };
}

/**
 * S4 against one target: `screens` clients, their starts spread over one period, each sending the screen request
 * once per period (the next on its own tick, or at once when an answer came late), and `others` clients sending S1
 * back to back, for `durationS`. Every answer must be a 200 without errors.
 */
export async function runVenueScreens(
  target: Target,
  requests: { screen: ScenarioRequest; other: ScenarioRequest },
  options: VenueScreensOptions,
  calls: { reset(): Promise<void>; settled(): Promise<CallCounts> },
): Promise<VenueScreensSide> {
  const screens = options.screens ?? 40;
  const others = options.others ?? 10;
  const periodMs = options.periodMs ?? 2000;
  const pool = new Pool(target.url, { connections: screens + others });
  const screenTimes: number[] = [];
  const otherTimes: number[] = [];
  try {
    await calls.reset();
    const cpuBefore = cpuTimeMs(target.process.pid) ?? NaN;
    const started = performance.now();
    const end = started + options.durationS * 1000;
    const send = async (request: ScenarioRequest, times: number[]): Promise<void> => {
      const sent = performance.now();
      const res = await pool.request({ method: request.method, path: request.path, headers: request.headers, body: request.body });
      const text = await res.body.text();
      if (res.statusCode !== 200 || !text.startsWith('{"data"') || text.includes('"errors":')) throw new Error(`${target.label} answered ${res.statusCode}: ${text.slice(0, 300)}`);
      times.push(performance.now() - sent);
    };
    const screen = async (i: number): Promise<void> => {
      let tick = started + (i * periodMs) / screens;
      await sleep(tick - performance.now());
      while (tick < end) {
        await send(requests.screen, screenTimes);
        tick += periodMs;
        const wait = tick - performance.now();
        if (wait > 0) await sleep(wait);
      }
    };
    const other = async (): Promise<void> => {
      while (performance.now() < end) await send(requests.other, otherTimes);
    };
    await Promise.all([...Array.from({ length: screens }, (_, i) => screen(i)), ...Array.from({ length: others }, () => other())]);
    const cpuMs = (cpuTimeMs(target.process.pid) ?? NaN) - cpuBefore;
    const counted = await calls.settled();
    const requestsSent = screenTimes.length + otherTimes.length;
    return {
      label: target.label,
      screenRequests: screenTimes.length,
      otherRequests: otherTimes.length,
      callsPerScreenRequest: (counted.byVenue.laTerrazza ?? 0) / Math.max(1, screenTimes.length),
      callsPerRequest: (counted.reservation + counted.pos) / Math.max(1, requestsSent),
      screenP50: percentile(screenTimes, 0.5),
      screenP99: percentile(screenTimes, 0.99),
      otherP50: percentile(otherTimes, 0.5),
      otherP99: percentile(otherTimes, 0.99),
      cpuMsPerQuery: cpuMs / Math.max(1, requestsSent),
    };
  } finally {
    await pool.close();
  }
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}
