import type { ChaosRun } from './harness';
import { BOOKING_NOTE_PREFIX } from './upstreamsMain';

/** The contract's figure: keyed mutations succeed again within this long of the primary's death (CONTRACT.md, Process). */
export const RECOVERY_LIMIT_S = 15;
/** The proxy kept serving: a successful query in every window of this length. */
const SERVING_WINDOW_S = 5;

export interface ChaosCheck {
  name: string;
  pass: boolean;
  detail: string;
}

export interface ChaosSummary {
  bookings: number;
  /** Keyed bookings by how many times the upstream executed them (0, 1, 2, …). */
  executions: Map<number, number>;
  /** Keys the upstream executed more than once during the run. */
  ranTwice: Array<{ key: string; runs: number }>;
  /** Keys with a final answer that ran again when sent once more after the run: their completion was lost. */
  ranAgainOnResend: string[];
  /** Keys without a final answer when the run ended. */
  unanswered: string[];
  /** Keys answered with a reservation the upstream did not make for them. */
  mismatched: string[];
  /** Final answers of keyed bookings, by label. */
  finals: Map<string, number>;
  /** What the re-send after the run got, by label. */
  resends: Map<string, number>;
  /** Every answer of the run, by kind and label. */
  answers: Map<string, number>;
  /** Seconds from the primary's death to the first success of a booking sent after it; null: none. */
  recoveryS: number | null;
  promotionS: number | null;
  serving: { windows: number; served: number; connectionErrors: number };
  /** Each phase of the budgeted client; `afterRedisDeath`: the primary died before the phase ended. */
  budget: Array<{ calls: number; budget: number; overshoot: number; refused: number; seconds: number; afterRedisDeath: boolean }>;
  checks: ChaosCheck[];
}

export function summarize(run: ChaosRun): ChaosSummary {
  const { traffic, upstream, upstreamAfterResend } = run;
  const runsOf = (report: typeof upstream, key: string) => report.bookingsByNote[`${BOOKING_NOTE_PREFIX}${key}`] ?? [];
  const executions = new Map<number, number>();
  const ranTwice: ChaosSummary['ranTwice'] = [];
  const ranAgainOnResend: string[] = [];
  const unanswered: string[] = [];
  const mismatched: string[] = [];
  const finals = new Map<string, number>();
  const resends = new Map<string, number>();
  for (const booking of traffic.bookings) {
    const ids = runsOf(upstream, booking.key);
    bump(executions, ids.length);
    if (ids.length > 1) ranTwice.push({ key: booking.key, runs: ids.length });
    if (runsOf(upstreamAfterResend, booking.key).length > ids.length) ranAgainOnResend.push(booking.key);
    if (!booking.final) unanswered.push(booking.key);
    else bump(finals, booking.final.replayed ? `${booking.final.label} (replayed)` : booking.final.label);
    if (booking.final?.reservationId && !ids.includes(booking.final.reservationId)) mismatched.push(booking.key);
    if (booking.resend) bump(resends, booking.resend.replayed ? `${booking.resend.label} (replayed)` : booking.resend.label);
  }
  const answers = new Map<string, number>();
  for (const a of traffic.attempts) bump(answers, `${a.kind}: ${a.label}${a.replayed ? ' (replayed)' : ''}`);

  const killedAt = run.redisKilledAt;
  const recovered = killedAt === undefined
    ? undefined
    : traffic.attempts.find((a) => a.kind === 'booking' && a.startedAt >= killedAt && a.status === 200 && a.reservationId !== undefined && !a.replayed);
  const recoveryS = killedAt !== undefined && recovered ? (recovered.endedAt - killedAt) / 1000 : null;
  const promotionS = killedAt !== undefined && run.promotedAt !== undefined ? (run.promotedAt - killedAt) / 1000 : null;

  const windows = Math.max(1, Math.floor(run.options.durationS / SERVING_WINDOW_S));
  const served = new Set<number>();
  for (const a of traffic.attempts) {
    if ((a.kind === 'day' || a.kind === 'check') && a.label === '200 ok') served.add(Math.floor((a.endedAt - run.startedAt) / (SERVING_WINDOW_S * 1000)));
  }
  const serving = {
    windows,
    served: [...served].filter((w) => w < windows).length,
    connectionErrors: traffic.attempts.filter((a) => a.label === 'connection error').length,
  };

  const perMinute = run.options.budget.perMinute;
  const budget = traffic.budgetPhases.map((phase) => {
    const calls = upstream.employeesCalls.filter((t) => t >= phase.startedAt && t <= phase.endedAt + 2000).length;
    return {
      calls,
      budget: perMinute,
      overshoot: Math.max(0, calls - perMinute),
      refused: [...phase.answers].filter(([label]) => label.startsWith('429')).reduce((n, [, c]) => n + c, 0),
      seconds: (phase.endedAt - phase.startedAt) / 1000,
      afterRedisDeath: killedAt !== undefined && killedAt <= phase.endedAt,
    };
  });

  const checks: ChaosCheck[] = [
    { name: 'no keyed booking ran twice upstream', pass: ranTwice.length === 0, detail: ranTwice.length === 0 ? 'every key ran at most once' : `${ranTwice.length} keys ran more than once: ${ranTwice.slice(0, 5).map((k) => `${k.key} ×${k.runs}`).join(', ')}` },
    { name: 'no completion dropped: a finished booking sent again is replayed or reported, never run again', pass: ranAgainOnResend.length === 0, detail: ranAgainOnResend.length === 0 ? 'none ran again' : `${ranAgainOnResend.length} ran again: ${ranAgainOnResend.slice(0, 5).join(', ')}` },
    { name: 'every keyed booking got a final answer (its result, or IDEMPOTENCY_OUTCOME_UNKNOWN)', pass: unanswered.length === 0, detail: `${traffic.bookings.length - unanswered.length} of ${traffic.bookings.length}` },
    { name: "every success names the booking the upstream made for its key", pass: mismatched.length === 0, detail: mismatched.length === 0 ? 'all' : `${mismatched.length} do not: ${mismatched.slice(0, 5).join(', ')}` },
    ...(killedAt === undefined
      ? []
      : [{ name: `keyed bookings succeed again within ${RECOVERY_LIMIT_S} s of the Redis primary's death`, pass: recoveryS !== null && recoveryS <= RECOVERY_LIMIT_S, detail: recoveryS === null ? 'no keyed booking sent after it succeeded' : `after ${recoveryS.toFixed(1)} s` }]),
    { name: `the proxy kept serving (a successful query in every ${SERVING_WINDOW_S} s)`, pass: serving.served === serving.windows, detail: `${serving.served} of ${serving.windows} windows; ${serving.connectionErrors} connection errors` },
  ];
  return { bookings: traffic.bookings.length, executions, ranTwice, ranAgainOnResend, unanswered, mismatched, finals, resends, answers, recoveryS, promotionS, serving, budget, checks };
}

/** The report `npm run chaos` prints: Markdown tables, as docs/operations.md keeps them. */
export function formatSummary(run: ChaosRun, summary: ChaosSummary): string {
  const lines: string[] = [];
  const table = (head: string[], rows: Array<Array<string | number>>) => {
    lines.push(`| ${head.join(' | ')} |`, `|${head.map((_h, i) => (i === 0 ? '---' : '---:')).join('|')}|`);
    for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
    lines.push('');
  };
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  lines.push('Timeline:', '', ...run.events.map((e) => `- ${e.atS.toFixed(1)} s: ${e.what}`), '');
  table(['keyed bookings executed upstream', 'keys'], [...summary.executions].sort((a, b) => a[0] - b[0]).map(([n, keys]) => [`${n} time${n === 1 ? '' : 's'}`, keys]));
  table(['final answer of a keyed booking', 'keys'], [...sorted(summary.finals), ...(summary.unanswered.length > 0 ? [['none before the run ended', summary.unanswered.length] as [string, number]] : [])]);
  table(['every answer (kind: status code)', 'count'], sorted(summary.answers));
  table(['re-send of a finished booking after the run', 'count'], sorted(summary.resends));
  lines.push(
    `Redis: Sentinel named a new primary ${summary.promotionS === null ? '(never)' : `${summary.promotionS.toFixed(1)} s`} after the primary's death; ` +
      `keyed bookings succeeded again ${summary.recoveryS === null ? 'never (none sent after it succeeded)' : `${summary.recoveryS.toFixed(1)} s`} after it.`,
    '',
  );
  const largest = summary.budget.reduce((max, b) => Math.max(max, b.overshoot), 0);
  lines.push(`Budgets: largest overshoot ${largest} upstream calls over the budgeted client's ${run.options.budget.perMinute} a minute (${run.options.budget.concurrency} requests at a time):`, '');
  table(
    ['budget phase', 'upstream calls', 'budget', 'overshoot', '429s', 'after the primary died'],
    summary.budget.map((b, i) => [`${i + 1} (${b.seconds.toFixed(0)} s)`, b.calls, b.budget, b.overshoot, b.refused, b.afterRedisDeath ? 'yes' : 'no']),
  );
  table(['surviving gateway', 'RSS MiB', 'peak RSS MiB'], run.survivors.map((s) => [s.name, s.rssMiB.toFixed(0), s.peakMiB.toFixed(0)]));
  if (run.warnings.size > 0) table(['gateway log line (warn and above)', 'count'], sorted(run.warnings));
  for (const c of summary.checks) lines.push(`${c.pass ? 'PASS' : 'FAIL'}  ${c.name}: ${c.detail}`);
  return lines.join('\n');
}

function bump<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}
