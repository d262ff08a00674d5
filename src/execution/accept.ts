import Negotiator from 'negotiator';

/** Apollo Server's media types for a single result (its MEDIA_TYPES), in the order it offers them. */
const OFFERED = ['application/json; charset=utf-8', 'application/graphql-response+json; charset=utf-8', 'application/json; callbackSpec=1.0; charset=utf-8'];

/** Accept headers seen, with Apollo's choice for each; few distinct ones come (one per client library). */
const chosen = new Map<string, string | null>();
const MAX_REMEMBERED = 64;

/**
 * The content type of a single GraphQL result for this accept header, chosen as Apollo Server chooses it
 * (`chooseContentTypeForSingleResultResponse`, with the same negotiator): application/json without an accept
 * header; undefined when the header accepts neither JSON type (Apollo answers 406).
 */
export function responseContentType(accept: string | undefined): string | undefined {
  if (!accept) return OFFERED[0];
  let choice = chosen.get(accept);
  if (choice === undefined) {
    choice = new Negotiator({ headers: { accept } }).mediaType(OFFERED) ?? null;
    if (chosen.size >= MAX_REMEMBERED) chosen.clear();
    chosen.set(accept, choice);
  }
  return choice ?? undefined;
}
