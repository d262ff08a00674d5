/** The wire formats a subscription's events can be written in over HTTP. */
export type SubscriptionWire = 'sse' | 'multipart';

/**
 * The subscription stream an `Accept` header asks for, in the client's order: Server-Sent Events (`text/event-stream`,
 * graphql-sse), or Apollo's multipart subscriptions (`multipart/mixed` with a `subscriptionSpec`, as `HttpLink` sends
 * it); undefined when it asks for neither (a plain JSON client, or `@defer`'s `multipart/mixed;deferSpec=…`).
 */
export function subscriptionWire(accept: string | undefined): SubscriptionWire | undefined {
  // Most requests ask for JSON: neither type is named, so no range can match.
  if (!accept || !/event-stream|multipart\/mixed/i.test(accept)) return undefined;
  for (const range of accept.toLowerCase().split(',')) {
    const [type = '', ...params] = range.split(';').map((part) => part.trim());
    if (params.some((p) => /^q=0(\.0*)?$/.test(p))) continue;
    if (type === 'text/event-stream') return 'sse';
    if (type === 'multipart/mixed' && params.some((p) => p.startsWith('subscriptionspec='))) return 'multipart';
  }
  return undefined;
}

/**
 * The header the route gives Apollo when it hands over a stream's GET as a POST (and removes from what clients send):
 * a mutation is refused from it as from any GET.
 */
export const SENT_AS_GET = 'x-tablegraph-sent-as-get';
