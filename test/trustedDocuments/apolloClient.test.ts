import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { generatePersistedQueryIdsFromManifest } from '@apollo/persisted-query-lists';
import { BookDocument, DayViewDocument, StaffListDocument } from '../../operations/generated/graphql';
import { SAMPLE } from '../../src/sandbox';
import { addDays } from '../../src/sandbox/venueTime';
import { LA_TERRAZZA, startStack, type Stack } from '../support/stack';
import { MANIFEST_PATH, manifest } from './support';

/** Apollo Client as a front-end would set it up, against the sandbox gateway; every request body it sends is kept. */
function client(stack: Stack, sent: Array<Record<string, unknown>>, persisted: boolean): ApolloClient {
  const http = new HttpLink({
    uri: `${stack.url}/graphql`,
    headers: LA_TERRAZZA,
    fetch: async (input, init) => {
      sent.push(JSON.parse(typeof init?.body === 'string' ? init.body : '') as Record<string, unknown>);
      return fetch(input, init);
    },
  });
  const link = persisted ? ApolloLink.from([new PersistedQueryLink(generatePersistedQueryIdsFromManifest({ loadManifest: () => manifest() })), http]) : http;
  return new ApolloClient({ cache: new InMemoryCache(), link });
}

describe('Apollo Client with a persisted query list', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: { TRUSTED_DOCUMENTS: MANIFEST_PATH, TRUSTED_DOCUMENTS_MODE: 'enforce' } });
  });
  afterAll(() => stack.close());

  it('sends only ids and is served in enforce mode', async () => {
    const sent: Array<Record<string, unknown>> = [];
    const apollo = client(stack, sent, true);
    const day = await apollo.query({ query: DayViewDocument, variables: { date: SAMPLE.laTerrazza.busyDate(stack.sandbox.state), perPage: 50 } });
    expect(day.error).toBeUndefined();
    expect(day.data?.reservations?.nodes).toHaveLength(50);
    expect(day.data?.reservations?.nodes?.some((r) => r?.check?.summary?.totalAmount)).toBe(true);
    const staff = await apollo.query({ query: StaffListDocument, variables: { perPage: 2 } });
    expect(staff.data?.employees?.nodes).toHaveLength(2);
    const booked = await apollo.mutate({
      mutation: BookDocument,
      variables: {
        input: {
          revenueCenterId: SAMPLE.laTerrazza.revenueCenterIds[0],
          date: `${addDays(SAMPLE.today(stack.sandbox.state), 3)}T19:30`,
          guestCount: 2,
          customer: { firstName: 'Grace', lastName: 'Hopper' },
        },
      },
    });
    expect(booked.data?.createReservation.reservation.customer?.firstName).toBe('Grace');

    const ids = new Set(manifest().operations.map((o) => o.id));
    expect(sent).toHaveLength(3);
    for (const body of sent) {
      expect(body.query).toBeUndefined();
      const hash = (body.extensions as { persistedQuery: { sha256Hash: string } }).persistedQuery.sha256Hash;
      expect(ids.has(hash)).toBe(true);
    }
  });

  it('is refused when it sends a free-form query', async () => {
    const sent: Array<Record<string, unknown>> = [];
    const plain = client(stack, sent, false);
    stack.sandbox.resetRequests();
    const result = await plain.query({ query: gql`query FreeForm { employees { nodes { id } } }`, errorPolicy: 'all' }).catch((err: unknown) => ({ error: err }));
    expect(sent[0]?.query).toContain('FreeForm');
    const error = result.error as (Error & { statusCode?: number; bodyText?: string }) | undefined;
    expect(error?.statusCode).toBe(400);
    expect(error?.bodyText).toContain('PERSISTED_QUERY_NOT_IN_LIST');
    expect(stack.sandbox.requests).toHaveLength(0);
  });
});
