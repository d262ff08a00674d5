import { UpstreamError } from '../../src/errors/UpstreamError';
import { combineEvents } from '../../src/upstreams/events';

describe('combineEvents', () => {
  it('calls both listeners of an event both sets listen to, and keeps the others', () => {
    const calls: string[] = [];
    const combined = combineEvents(
      { onCircuitStateChange: (s) => calls.push(`log ${s}`), onRetry: () => calls.push('retry') },
      { onCircuitStateChange: (s) => calls.push(`gauge ${s}`), onCall: () => calls.push('call') },
    );
    combined.onCircuitStateChange?.('pos', 'open');
    combined.onRetry?.('pos', 1, 0, new UpstreamError('pos', 'timeout'));
    combined.onCall?.({ service: 'pos', method: 'GET', route: '/x', durationMs: 1, source: 'upstream' });
    expect(calls).toEqual(['log pos', 'gauge pos', 'retry', 'call']);
  });
});
