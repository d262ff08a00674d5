import type { Server } from 'node:http';
import { tenantByPosToken } from './credentials';
import { createJsonServer, errorReply, type SandboxReply, type SandboxRequest, type ServiceOptions } from './http';
import { isPageRequest, pageRequestOf, paginate } from './pagination';
import type { SandboxState, TenantState } from './records';
import { isUuid } from './validate';

/**
 * Error bodies of the simulated POS. Documented: 404 "record not found" for
 * an unknown check (the body is not shown; this one is ours). Assumptions:
 * 401 when Pos-Access-Token is missing or unknown, 400 for bad paging, 404
 * for unknown routes.
 */
const POS_ERRORS = {
  unauthorized: (): SandboxReply => errorReply(401, 'Unauthorized', 401),
  recordNotFound: (): SandboxReply => errorReply(404, 'record not found'),
  routeNotFound: (): SandboxReply => errorReply(404, 'Not found', 404),
} as const;

const CHECK_PATH = /^\/checks\/([^/]+)$/;

/** The simulated point-of-sale service over `state` (not listening). */
export function createPosService(state: SandboxState, options: ServiceOptions = {}): Server {
  return createJsonServer('pos', (request) => route(state, request), options);
}

function route(state: SandboxState, request: SandboxRequest): SandboxReply {
  const checkId = request.method === 'GET' ? CHECK_PATH.exec(request.pathname)?.[1] : undefined;
  const employees = request.method === 'GET' && request.pathname === '/employees';
  if (checkId === undefined && !employees) return POS_ERRORS.routeNotFound();
  const tenantKey = tenantByPosToken(request.headers);
  if (!tenantKey) return POS_ERRORS.unauthorized();
  const tenant = state.tenants[tenantKey];
  return checkId !== undefined ? getCheck(tenant, checkId) : listEmployees(tenant, request.query);
}

/** GET /checks/{id} → 200 the Check itself, not wrapped; only checks of the token's property. */
function getCheck(tenant: TenantState, id: string): SandboxReply {
  const check = isUuid(id) ? tenant.checks.get(id) : undefined;
  return check ? { status: 200, body: check } : POS_ERRORS.recordNotFound();
}

/** GET /employees?page=&per_page= → {"meta", "employees"}, scoped to the token's property. */
function listEmployees(tenant: TenantState, query: URLSearchParams): SandboxReply {
  const pageRequest = pageRequestOf(query);
  if (!isPageRequest(pageRequest)) return pageRequest;
  const { items, meta } = paginate(tenant.employees, pageRequest);
  return { status: 200, body: { meta, employees: items } };
}
