/**
 * Whether a request's `Accept` header asks for a page rather than a GraphQL answer: `text/html` named outright and
 * weighted at least as high as either JSON type. A browser's navigation (`text/html,…,*\/*;q=0.8`) does; curl's `*\/*`
 * and every GraphQL client (`application/json`, `application/graphql-response+json`) do not, so API clients keep
 * their JSON answers whatever else they list.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const weights = new Map<string, number>();
  for (const part of accept.split(',')) {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (!type) continue;
    const q = params.map((p) => /^q=([0-9.]+)$/.exec(p)).find((m) => m !== null);
    const weight = q ? Number(q[1]) : 1;
    if (Number.isFinite(weight)) weights.set(type, Math.max(weights.get(type) ?? 0, weight));
  }
  const html = weights.get('text/html') ?? 0;
  const json = Math.max(weights.get('application/json') ?? 0, weights.get('application/graphql-response+json') ?? 0);
  return html > 0 && html >= json;
}
