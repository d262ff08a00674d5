import { ErrorCode } from './codes';
import { UpstreamError, type ServiceName } from './UpstreamError';

/**
 * What a service's document says one of its error codes means: the reason name (`extensions.upstream.reason`),
 * the contract's code when it means more than its status (832 arrives as a 422), and the request field it is about.
 */
interface DocumentedCode {
  reason: string;
  code?: ErrorCode;
  field?: string;
}

/**
 * Each service's documented error codes (reservation-service.md, "Errors"); a code not in its own service's table is
 * read by its status. pos-service.md documents none: a POS answer is read by its status alone.
 */
const BY_SERVICE: Readonly<Record<ServiceName, Readonly<Record<number, DocumentedCode>>>> = {
  reservation: {
    960: { reason: 'invalid_token', code: ErrorCode.UNAUTHENTICATED },
    821: { reason: 'payment_expiry_duration_is_not_suitable', field: 'expiration_time' },
    822: { reason: 'amount_is_invalid', field: 'amount' },
    832: { reason: 'feature_disabled_error', code: ErrorCode.FEATURE_DISABLED },
  },
  pos: {},
};

export function documentedCode(service: ServiceName, upstreamCode: number | undefined): DocumentedCode | undefined {
  return upstreamCode === undefined ? undefined : BY_SERVICE[service][upstreamCode];
}

const SERVICE_LABEL: Record<ServiceName, string> = { reservation: 'The reservation service', pos: 'The POS service' };

const BY_FAILURE = { timeout: ErrorCode.UPSTREAM_TIMEOUT, unavailable: ErrorCode.UPSTREAM_UNAVAILABLE, bad_response: ErrorCode.UPSTREAM_BAD_RESPONSE } as const;
const BY_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: ErrorCode.BAD_USER_INPUT,
  422: ErrorCode.BAD_USER_INPUT,
  401: ErrorCode.UNAUTHENTICATED,
  403: ErrorCode.FORBIDDEN,
  404: ErrorCode.NOT_FOUND,
};

/** The one map from an upstream failure to the contract's `extensions.code`; a documented upstream code wins over the status. */
export function upstreamErrorCode(err: Pick<UpstreamError, 'service' | 'failure' | 'status' | 'upstreamCode'>): ErrorCode {
  if (err.failure !== 'status') return BY_FAILURE[err.failure];
  return documentedCode(err.service, err.upstreamCode)?.code ?? (err.status === undefined ? undefined : BY_STATUS[err.status]) ?? ErrorCode.UPSTREAM_ERROR;
}

/**
 * `extensions.upstream` for an error caused by an upstream answer; undefined when there was no answer. A bad
 * response names the upstream field and the JSON type that came there, never the value.
 */
export function upstreamExtension(err: UpstreamError) {
  if (err.status === undefined) return undefined;
  const reason = documentedCode(err.service, err.upstreamCode)?.reason;
  return {
    service: err.service,
    status: err.status,
    ...(err.upstreamCode !== undefined ? { code: err.upstreamCode } : {}),
    ...(reason ? { reason } : {}),
    ...(err.deviation ? { field: err.deviation.field, received: err.deviation.received } : {}),
  };
}

/** `extensions.field` of an upstream refusal of the input (namedAfterInput), only when reported as BAD_USER_INPUT. */
export function upstreamErrorField(err: UpstreamError): string | undefined {
  return upstreamErrorCode(err) === ErrorCode.BAD_USER_INPUT ? err.inputField : undefined;
}

/** A message for people: which service, what happened, the service's own words when safe. */
export function upstreamErrorMessage(err: UpstreamError): string {
  const who = SERVICE_LABEL[err.service];
  const said = err.upstreamMessage ? `: ${err.upstreamMessage}` : '';
  switch (err.failure) {
    case 'timeout':
      return `${who} did not answer in time.`;
    case 'unavailable':
      return `${who} is unavailable${err.detail ? ` (${err.detail})` : ''}.`;
    case 'bad_response':
      return `${who} sent an answer the gateway cannot use${err.detail ? `: ${err.detail}` : ''}.`;
    case 'status':
      return `${who} refused the request (HTTP ${err.status})${said}.`;
  }
}

/** The upstream's own message, only when it is short plain text naming no address: upstream messages are not ours to trust. */
export function safeUpstreamMessage(message: unknown): string | undefined {
  if (typeof message !== 'string') return undefined;
  const trimmed = message.trim();
  if (trimmed.length === 0 || trimmed.length > 200) return undefined;
  if (/[a-z][a-z0-9+.-]*:\/\/|\b\d{1,3}(\.\d{1,3}){3}\b|[\r\n<>{}]/i.test(trimmed)) return undefined;
  return trimmed;
}

/** Upstream field name → GraphQL input path, as `upstreamFieldPaths` (src/inputs/parse.ts) derives it. */
type InputFieldPaths = ReadonlyMap<string, string>;

/**
 * An upstream refusal of the input (BAD_USER_INPUT) said in the client's names: `revenue_center_id is not …` becomes
 * `input.revenueCenterId is not …`, and the field its documented code names (822 → `amount`), or else the first one
 * named, becomes `inputField`. Anything else comes back as it was.
 */
export function namedAfterInput(err: UpstreamError, fields: InputFieldPaths): UpstreamError {
  if (upstreamErrorCode(err) !== ErrorCode.BAD_USER_INPUT) return err;
  const said = err.upstreamMessage ? renamed(err.upstreamMessage, fields) : undefined;
  const documented = documentedCode(err.service, err.upstreamCode)?.field;
  const inputField = (documented !== undefined ? fields.get(documented) : undefined) ?? said?.first;
  if (inputField === undefined && said?.message === err.upstreamMessage) return err;
  return new UpstreamError(err.service, err.failure, { ...err, cause: err.cause, upstreamMessage: said?.message, inputField });
}

/** Runs an upstream call whose input refusals are named after `fields`. */
export async function withInputNames<T>(fields: InputFieldPaths, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    throw err instanceof UpstreamError ? namedAfterInput(err, fields) : err;
  }
}

/**
 * Each upstream name, as a whole word, at its first mention only: a name that is also a plain word ("date must be a
 * date of the form …") is the field where it comes first and prose after that.
 */
function renamed(message: string, fields: InputFieldPaths): { message: string; first?: string } {
  const names = [...fields.keys()].sort((a, b) => b.length - a.length).map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (names.length === 0) return { message };
  const seen = new Set<string>();
  let first: string | undefined;
  const text = message.replace(new RegExp(`(?<![\\w.])(${names.join('|')})(?![\\w])`, 'g'), (name: string, _: string, at: number) => {
    // A plain-word name after an article is prose: "customer_id is not a customer of this store".
    if (seen.has(name) || (/^[a-z]+$/.test(name) && /\b(?:a|an|the) $/i.test(message.slice(0, at)))) return name;
    seen.add(name);
    const path = fields.get(name)!;
    first ??= path;
    return path;
  });
  return { message: text, first };
}
