import {
  TRACESTATE_MAX_CHARS,
  capTracestate,
  formatTraceparent,
  outgoingTraceContext,
  parseTraceparent,
  randomParentId,
  randomTraceId,
} from '../../src/observability/traceContext';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const VALID = `00-${TRACE_ID}-${PARENT_ID}-01`;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

function fields(header: string): { traceId: string; parentId: string; flags: string } {
  const match = TRACEPARENT.exec(header);
  if (!match) throw new Error(`not a traceparent: ${header}`);
  return { traceId: match[1], parentId: match[2], flags: match[3] };
}

describe('W3C trace context', () => {
  describe('parseTraceparent', () => {
    it('reads a valid version 00 header', () => {
      expect(parseTraceparent(VALID)).toEqual({ traceId: TRACE_ID, parentId: PARENT_ID, flags: '01' });
      expect(parseTraceparent(`00-${TRACE_ID}-${PARENT_ID}-00`)).toEqual({ traceId: TRACE_ID, parentId: PARENT_ID, flags: '00' });
    });

    it.each([
      ['absent', undefined],
      ['empty', ''],
      ['another version', `01-${TRACE_ID}-${PARENT_ID}-01`],
      ['the forbidden version ff', `ff-${TRACE_ID}-${PARENT_ID}-01`],
      ['version 00 with an extra field', `${VALID}-extra`],
      ['an all-zero trace-id', `00-${'0'.repeat(32)}-${PARENT_ID}-01`],
      ['an all-zero parent-id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
      ['uppercase hex in the trace-id', `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`],
      ['uppercase hex in the parent-id', `00-${TRACE_ID}-00F067AA0BA902B7-01`],
      ['uppercase hex in the flags', `00-${TRACE_ID}-${PARENT_ID}-0A`],
      ['a short trace-id', `00-${TRACE_ID.slice(1)}-${PARENT_ID}-01`],
      ['a long trace-id', `00-${TRACE_ID}a-${PARENT_ID}-01`],
      ['a short parent-id', `00-${TRACE_ID}-${PARENT_ID.slice(1)}-01`],
      ['a long parent-id', `00-${TRACE_ID}-${PARENT_ID}a-01`],
      ['one-digit flags', `00-${TRACE_ID}-${PARENT_ID}-1`],
      ['three-digit flags', `00-${TRACE_ID}-${PARENT_ID}-011`],
      ['non-hex characters', `00-${TRACE_ID.replace('4', 'g')}-${PARENT_ID}-01`],
      ['surrounding junk', ` ${VALID}`],
      ['two headers joined by a comma', `${VALID}, 00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`],
      ['another separator', VALID.replaceAll('-', '_')],
    ])('rejects %s', (_name, header) => {
      expect(parseTraceparent(header)).toBeUndefined();
    });

    it('formats what it parses back to the same header', () => {
      expect(formatTraceparent(parseTraceparent(VALID)!)).toBe(VALID);
    });
  });

  describe('random ids', () => {
    it('are lowercase hex of the W3C lengths, not all zeros, and differ each time', () => {
      const traceIds = new Set(Array.from({ length: 200 }, randomTraceId));
      const parentIds = new Set(Array.from({ length: 200 }, randomParentId));
      expect(traceIds.size).toBe(200);
      expect(parentIds.size).toBe(200);
      for (const id of traceIds) expect(id).toMatch(/^(?!0{32})[0-9a-f]{32}$/);
      for (const id of parentIds) expect(id).toMatch(/^(?!0{16})[0-9a-f]{16}$/);
    });
  });

  describe('capTracestate', () => {
    it('keeps a value of up to 512 characters unchanged', () => {
      expect(capTracestate('congo=t61rcWkgMzE,rojo=00f067aa0ba902b7')).toBe('congo=t61rcWkgMzE,rojo=00f067aa0ba902b7');
      expect(capTracestate('rojo=1 , congo=2')).toBe('rojo=1 , congo=2');
      const exactly = `a=${'x'.repeat(TRACESTATE_MAX_CHARS - 2)}`;
      expect(capTracestate(exactly)).toBe(exactly);
    });

    it('gives nothing for an absent, empty or non-ASCII value', () => {
      expect(capTracestate(undefined)).toBeUndefined();
      expect(capTracestate('')).toBeUndefined();
      expect(capTracestate('  ')).toBeUndefined();
      expect(capTracestate('rojo=caf\u00e9')).toBeUndefined();
      expect(capTracestate('rojo=1\u0000')).toBeUndefined();
    });

    it('cuts a longer value on member boundaries to at most 512 characters, dropping members over 128 first', () => {
      const members = Array.from({ length: 20 }, (_, i) => `k${String(i).padStart(2, '0')}=${'v'.repeat(36)}`); // 40 chars each
      const huge = `big=${'x'.repeat(200)}`;
      const value = [members[0], huge, ...members.slice(1)].join(',');
      expect(value.length).toBeGreaterThan(TRACESTATE_MAX_CHARS);
      const capped = capTracestate(value)!;
      expect(capped.length).toBeLessThanOrEqual(TRACESTATE_MAX_CHARS);
      // 12 members of 40 plus 11 commas = 491; a 13th would make 532.
      expect(capped).toBe(members.slice(0, 12).join(','));
      expect(capped).not.toContain('big=');
    });

    it('keeps at most 32 members when it has to cut', () => {
      const members = Array.from({ length: 200 }, (_, i) => `k${i}=1`);
      const capped = capTracestate(members.join(','))!;
      expect(capped.split(',')).toEqual(members.slice(0, 32));
    });

    it('gives nothing when no member survives the cut', () => {
      expect(capTracestate(`a=${'x'.repeat(600)}`)).toBeUndefined();
    });
  });

  describe('outgoingTraceContext', () => {
    it('forwards a valid client traceparent unchanged: same trace-id, parent-id and flags', () => {
      for (const flags of ['00', '01', '03']) {
        const client = `00-${TRACE_ID}-${PARENT_ID}-${flags}`;
        const out = outgoingTraceContext(client, undefined);
        expect(out).toEqual({ traceparent: client });
        expect(fields(out.traceparent)).toEqual({ traceId: TRACE_ID, parentId: PARENT_ID, flags });
      }
    });

    it('forwards the same client traceparent the same way each time, and each client its own', () => {
      expect(outgoingTraceContext(VALID, undefined)).toEqual(outgoingTraceContext(VALID, undefined));
      const other = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-00`;
      expect(outgoingTraceContext(other, undefined)).toEqual({ traceparent: other });
    });

    it("forwards the client's tracestate with a valid traceparent, capped", () => {
      expect(outgoingTraceContext(VALID, 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7')).toEqual({
        traceparent: VALID,
        tracestate: 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7',
      });
      const long = Array.from({ length: 30 }, (_, i) => `k${String(i).padStart(2, '0')}=${'v'.repeat(36)}`).join(',');
      const forwarded = outgoingTraceContext(VALID, long).tracestate!;
      expect(forwarded.length).toBeLessThanOrEqual(TRACESTATE_MAX_CHARS);
      expect(long.startsWith(forwarded)).toBe(true);
      expect(outgoingTraceContext(VALID, long).traceparent).toBe(VALID);
    });

    it('forwards the client traceparent without a tracestate when the tracestate is empty or invalid', () => {
      expect(outgoingTraceContext(VALID, '')).toEqual({ traceparent: VALID });
      expect(outgoingTraceContext(VALID, 'rojo=caf\u00e9')).toEqual({ traceparent: VALID });
    });

    it('starts a new unsampled trace without a client traceparent, and drops a lone tracestate', () => {
      const out = outgoingTraceContext(undefined, 'congo=t61rcWkgMzE');
      const sent = fields(out.traceparent);
      expect(sent.flags).toBe('00');
      expect(sent.traceId).not.toBe('0'.repeat(32));
      expect(out).not.toHaveProperty('tracestate');
    });

    it('starts a new unsampled trace, without the tracestate, when the client traceparent is invalid', () => {
      const out = outgoingTraceContext(`00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`, 'congo=t61rcWkgMzE');
      const sent = fields(out.traceparent);
      expect(sent.traceId).not.toBe(TRACE_ID);
      expect(sent.parentId).not.toBe(PARENT_ID);
      expect(sent.flags).toBe('00');
      expect(out).not.toHaveProperty('tracestate');
    });

    it('makes a different trace for each request without one', () => {
      expect(fields(outgoingTraceContext(undefined, undefined).traceparent).traceId).not.toBe(
        fields(outgoingTraceContext(undefined, undefined).traceparent).traceId,
      );
    });
  });
});
