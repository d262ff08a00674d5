import { randomFillSync } from 'node:crypto';

/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/) without a tracing SDK: the gateway uses these when
 * tracing is off, so that upstream calls still carry `traceparent` (and the client's `tracestate`). Pure functions
 * apart from the random ids; no span is created or kept.
 */

/** A `traceparent` split into its fields, all lowercase hex. */
export interface Traceparent {
  /** 32 hex digits, not all zeros. */
  traceId: string;
  /** 16 hex digits, not all zeros: the span that sent the header. */
  parentId: string;
  /** 2 hex digits; bit 0 is `sampled`. */
  flags: string;
}

/** The trace context headers to send upstream. */
export interface TraceHeaders {
  traceparent: string;
  tracestate?: string;
}

/** Version 00 is the only one the gateway understands; a header of another version is treated as absent. */
const TRACEPARENT_V00 = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

/** The combined length of `tracestate` a vendor must be able to propagate; longer values are cut to it. */
export const TRACESTATE_MAX_CHARS = 512;
/** List-members longer than this are the first to go when `tracestate` must be cut (W3C, "Tracestate Limits"). */
const TRACESTATE_MAX_MEMBER_CHARS = 128;
/** A `tracestate` list holds at most 32 list-members. */
const TRACESTATE_MAX_MEMBERS = 32;
/** Tab and printable ASCII: `tracestate` keys and values are drawn from these. */
const TRACESTATE_CHARS = /^[\t\x20-\x7e]*$/;

/**
 * Parses a W3C `traceparent` header of version 00: `00-<32 hex trace-id>-<16 hex parent-id>-<2 hex flags>`, lowercase
 * hex only, neither id all zeros. Anything else (another version, uppercase hex, wrong lengths, extra fields, several
 * headers joined with a comma) gives undefined, so the caller starts a new trace.
 */
export function parseTraceparent(value: string | undefined): Traceparent | undefined {
  if (value === undefined) return undefined;
  const match = TRACEPARENT_V00.exec(value);
  if (!match) return undefined;
  const [, traceId, parentId, flags] = match;
  if (traceId === undefined || parentId === undefined || flags === undefined) return undefined;
  if (traceId === ZERO_TRACE_ID || parentId === ZERO_SPAN_ID) return undefined;
  return { traceId, parentId, flags };
}

/** Formats the fields as a version 00 `traceparent` header. */
export function formatTraceparent({ traceId, parentId, flags }: Traceparent): string {
  return `00-${traceId}-${parentId}-${flags}`;
}

/**
 * Random bytes drawn in batches, as node's randomUUID does: one randomFillSync per 256 ids of 16 bytes instead of one
 * per id, which is most of the cost of an id. Filled and read synchronously, so no two callers share bytes.
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

/** `bytes` random bytes as lowercase hex, never all zeros (a zero id is invalid in W3C trace context). */
function randomHexId(bytes: 8 | 16): string {
  for (;;) {
    if (poolOffset + bytes > pool.length) {
      randomFillSync(pool);
      poolOffset = 0;
    }
    const id = pool.toString('hex', poolOffset, poolOffset + bytes);
    poolOffset += bytes;
    if (id !== (bytes === 16 ? ZERO_TRACE_ID : ZERO_SPAN_ID)) return id;
  }
}

/** A new random trace-id: 32 lowercase hex digits, not all zeros. */
export function randomTraceId(): string {
  return randomHexId(16);
}

/** A new random parent-id (span id) for a new trace: 16 lowercase hex digits, not all zeros. */
export function randomParentId(): string {
  return randomHexId(8);
}

/**
 * The client's `tracestate`, to be forwarded as is when it is at most 512 characters. A longer one is cut on
 * list-member boundaries as W3C advises: members longer than 128 characters are dropped first, then members from the
 * end, until the rest fits (and at most 32 members are kept). Empty values and values with characters outside
 * printable ASCII (which no valid `tracestate` has) give undefined: nothing is forwarded.
 */
export function capTracestate(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === '' || !TRACESTATE_CHARS.test(value)) return undefined;
  if (value.length <= TRACESTATE_MAX_CHARS) return value;
  const kept: string[] = [];
  let length = 0;
  for (const raw of value.split(',')) {
    const member = raw.trim();
    if (member === '' || member.length > TRACESTATE_MAX_MEMBER_CHARS) continue;
    const added = kept.length === 0 ? member.length : member.length + 1;
    if (length + added > TRACESTATE_MAX_CHARS || kept.length === TRACESTATE_MAX_MEMBERS) break;
    kept.push(member);
    length += added;
  }
  return kept.length > 0 ? kept.join(',') : undefined;
}

/**
 * The trace context the gateway sends upstream for one GraphQL request when it records no spans itself.
 *
 * - A valid client `traceparent`: forwarded unchanged (same trace-id, parent-id and flags), with the client's
 *   `tracestate` (capped by `capTracestate`). The gateway records no span, so a parent-id of its own would point the
 *   upstream spans at a parent that exists nowhere and orphan them; W3C has a participant that records nothing pass
 *   the context through as it came, so upstream spans hang off the client's span.
 * - None, or an invalid one: a new random trace-id and parent-id with flags `00` (not sampled, since the gateway
 *   records nothing of it); a `tracestate` without a valid `traceparent` is meaningless and is dropped.
 *
 * Computed once per request and shared by all its upstream calls: without spans there is nothing that would tell
 * one call from another.
 */
export function outgoingTraceContext(traceparent: string | undefined, tracestate: string | undefined): TraceHeaders {
  if (traceparent === undefined || !parseTraceparent(traceparent)) {
    return { traceparent: formatTraceparent({ traceId: randomTraceId(), parentId: randomParentId(), flags: '00' }) };
  }
  // parseTraceparent accepts only the exact canonical form, so the header itself is what goes out.
  const outgoing: TraceHeaders = { traceparent };
  const state = capTracestate(tracestate);
  if (state !== undefined) outgoing.tracestate = state;
  return outgoing;
}
