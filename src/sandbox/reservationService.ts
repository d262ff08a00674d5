import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { tenantByApiKey, tenantByReservationToken } from './credentials';
import { createJsonServer, type SandboxReply, type SandboxRequest, type ServiceOptions } from './http';
import type { SandboxState } from './records';
import { createCalendarReservation } from './reservation/calendars';
import type { EndpointContext } from './reservation/context';
import { RESERVATION_ERRORS as E } from './reservation/errors';
import { createOffDay } from './reservation/offDays';
import { updatePaymentRequest } from './reservation/payments';
import { createReservation, listReservations, showReservation } from './reservation/reservations';
import { isRecord } from './validate';

export interface ReservationServiceOptions extends ServiceOptions {
  /** The venue's clock: a booking's "not in the past" and `created_at` on records made through the API. Default: () => new Date(). */
  clock?: () => Date;
}

/**
 * Which credentials a route takes. Documented: the API-key headers for off
 * days and calendars, Reservation-Access-Token for payment requests and
 * reservation creation. Assumption (contract): the read side takes the token too.
 */
type Guard = 'reservation-token' | 'api-key';

interface Route {
  method: string;
  path: RegExp;
  guard: Guard;
  /** Writes need a JSON object body; reads ignore the body. */
  write: boolean;
  handle: (ctx: EndpointContext, params: string[]) => SandboxReply;
}

const ROUTES: readonly Route[] = [
  { method: 'POST', path: /^\/v1\/reservations$/, guard: 'reservation-token', write: true, handle: createReservation },
  { method: 'GET', path: /^\/v1\/reservations$/, guard: 'reservation-token', write: false, handle: listReservations },
  { method: 'GET', path: /^\/v1\/reservations\/([^/]+)$/, guard: 'reservation-token', write: false, handle: (ctx, [id]) => showReservation(ctx, id ?? '') },
  { method: 'PATCH', path: /^\/v1\/reservation-payments$/, guard: 'reservation-token', write: true, handle: updatePaymentRequest },
  { method: 'POST', path: /^\/api\/v1\/off-days$/, guard: 'api-key', write: true, handle: createOffDay },
  { method: 'POST', path: /^\/api\/v1\/calendars$/, guard: 'api-key', write: true, handle: createCalendarReservation },
];

/** The simulated reservation service over `state` (not listening). */
export function createReservationService(state: SandboxState, options: ReservationServiceOptions = {}): Server {
  const clock = options.clock ?? (() => new Date());
  return createJsonServer('reservation', (request) => route(state, request, clock), options);
}

/** Route first (unknown paths are 404 even without credentials), then credentials, then the body. */
function route(state: SandboxState, request: SandboxRequest, clock: () => Date): SandboxReply {
  for (const candidate of ROUTES) {
    const match = candidate.method === request.method ? candidate.path.exec(request.pathname) : null;
    if (!match) continue;
    const tenantKey = candidate.guard === 'api-key' ? tenantByApiKey(request.headers) : tenantByReservationToken(request.headers);
    if (!tenantKey) return E.invalidToken();
    if (request.bodyNotJson) return E.badRequest('Request body is not valid JSON');
    if (candidate.write && !isRecord(request.body)) return E.badRequest('Request body must be a JSON object');
    const ctx: EndpointContext = {
      tenant: state.tenants[tenantKey],
      body: isRecord(request.body) ? request.body : {},
      query: request.query,
      clock,
      newId: randomUUID,
    };
    return candidate.handle(ctx, match.slice(1));
  }
  return E.routeNotFound();
}
