import { join } from 'node:path';
import { loadClientsFile } from '../clients/clientsFile';
import type { ExplorerOptions } from '../http/explorer';
import { SANDBOX_CREDENTIALS, SANDBOX_FIRST_PARTY_APP, SANDBOX_PARTNER } from './credentials';
import { SAMPLE } from './data';
import type { SandboxState } from './records';

/**
 * What `npm run dev` tells a newcomer, and what its explorer pre-fills: both venues' headers, the busy day, and
 * real ids from the sample. The ids are the same on every start; only the busy date moves with the clock, which is
 * why docs/clients.md names it BUSY_DATE (test/readmeExamples.test.ts reads it from this banner).
 */
export function sandboxExplorer(state: SandboxState): Omit<ExplorerOptions, 'enabled'> {
  return {
    venues: [
      { key: 'laTerrazza', name: 'La Terrazza', headers: SANDBOX_CREDENTIALS.laTerrazza },
      {
        key: 'bistroNord',
        name: 'Bistro Nord',
        headers: SANDBOX_CREDENTIALS.bistroNord,
        note: 'Payment links are off here: updatePaymentRequest answers FEATURE_DISABLED.',
      },
    ],
    variables: { date: SAMPLE.laTerrazza.busyDate(state) },
  };
}

/** The sample values a documented example may name, labelled as the banner prints them. */
export function sampleValues(state: SandboxState): Array<[label: string, value: string]> {
  const lt = SAMPLE.laTerrazza;
  const tenant = state.tenants.laTerrazza;
  const roomOf = (id: string) => tenant.revenue_centers.find((rc) => rc.id === id)?.name ?? '';
  const table = tenant.tables.find((t) => t.id === lt.tableIds[0]);
  return [
    ['BUSY_DATE', `${lt.busyDate(state)}  (${lt.busyDateReservationCount} reservations at La Terrazza)`],
    [`revenue center (${roomOf(lt.revenueCenterIds[0])})`, lt.revenueCenterIds[0]],
    [`table (${table?.name ?? ''}, ${roomOf(table?.revenue_center_id ?? '')})`, lt.tableIds[0]],
    ['check (open)', lt.openCheckId],
    ['check (closed)', lt.closedCheckId],
    ['reservation with that open check', lt.reservationWithCheckId],
    ['payment request', lt.paymentRequestId],
    ['payment request at Bistro Nord', SAMPLE.bistroNord.paymentRequestId],
  ];
}

/** The sample clients file `npm run dev` loads unless CLIENTS_FILE names another. */
export const SAMPLE_CLIENTS_FILE = join(__dirname, 'clients.yaml');

/** Who may call, as the banner says it: the sample file's partner key and limits, or the path of the file in use. */
function clientLines(file: string | undefined): string[] {
  if (file === undefined) return ['  Clients: no CLIENTS_FILE, every caller is served without limits.', ''];
  if (file !== SAMPLE_CLIENTS_FILE) return [`  Clients: ${file}`, ''];
  const partner = loadClientsFile(file).all.find((c) => c.name === SANDBOX_PARTNER.name);
  const limits = partner ? ` (${partner.policy.requestsPerSecond} request/s, burst ${partner.policy.burst}, ${partner.policy.upstreamCallsPerMinute} upstream calls/min)` : '';
  return [
    '  Clients (src/sandbox/clients.yaml; docs/clients.md, "Client limits"): the explorer and callers naming no client are anonymous;',
    `    partner "${SANDBOX_PARTNER.name}"${limits}:  X-Api-Key: ${SANDBOX_PARTNER.key}`,
    `    first-party app (trusted documents by id only):  apollographql-client-name: ${SANDBOX_FIRST_PARTY_APP}`,
    '',
  ];
}

export function devBanner(options: { explorerUrl: string; reservationUrl: string; posUrl: string; state: SandboxState; clientsFile?: string }): string {
  const indent = (text: string) => text.replace(/^/gm, '    ');
  const values = sampleValues(options.state);
  const width = Math.max(...values.map(([label]) => label.length));
  return [
    '',
    '  Tablegraph is running against the sandbox services.',
    `  Explorer:  ${options.explorerUrl}  (Apollo Sandbox; offline, GraphiQL served by the gateway)`,
    `  Simulated reservation service: ${options.reservationUrl}`,
    `  Simulated POS service:         ${options.posUrl}`,
    '',
    '  Headers of the venue "La Terrazza" (pre-filled in the explorer):',
    indent(JSON.stringify(SANDBOX_CREDENTIALS.laTerrazza, null, 2)),
    '  Headers of the second venue "Bistro Nord" (payment links off: FEATURE_DISABLED; the explorer has a switch):',
    indent(JSON.stringify(SANDBOX_CREDENTIALS.bistroNord, null, 2)),
    '',
    '  Sample values (the ids are the same on every start; the date moves with the clock):',
    ...values.map(([label, value]) => `    ${label.padEnd(width)}  ${value}`),
    '',
    ...clientLines(options.clientsFile),
    `  For the examples of docs/clients.md:  export BUSY_DATE=${SAMPLE.laTerrazza.busyDate(options.state)}`,
    '',
    `  Try:  query { reservations(date: "${SAMPLE.laTerrazza.busyDate(options.state)}") { nodes { id date guestCount customer { firstName } check { alias summary { totalAmount } } } } }`,
    '',
  ].join('\n');
}
