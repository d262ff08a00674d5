import { subscriptionWire } from '../../../src/http/transports/accept';

describe('subscriptionWire', () => {
  it('reads the stream a subscription client asks for, in its order', () => {
    expect(subscriptionWire('text/event-stream')).toBe('sse');
    // What Apollo Client's HttpLink sends for a subscription.
    expect(subscriptionWire('multipart/mixed;boundary=graphql;subscriptionSpec=1.0,application/graphql-response+json,application/json;q=0.9')).toBe('multipart');
    expect(subscriptionWire('multipart/mixed;subscriptionSpec="1.0", text/event-stream')).toBe('multipart');
  });

  it('asks for no subscription stream for JSON, for @defer\'s multipart, or for a range refused with q=0', () => {
    expect(subscriptionWire(undefined)).toBeUndefined();
    expect(subscriptionWire('application/json')).toBeUndefined();
    expect(subscriptionWire('multipart/mixed;deferSpec=20220824, application/json')).toBeUndefined();
    expect(subscriptionWire('text/event-stream;q=0, application/json')).toBeUndefined();
  });
});
