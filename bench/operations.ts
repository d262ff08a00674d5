import { sha256Hex } from '../src/sha256';

/**
 * The operations the benchmark sends, the same bytes to the gateway and to the baseline. The selections are whole:
 * every field of Check (and of what it nests) and of Reservation, so the baseline's hand-written mapping has to
 * produce every field too, and the two answers can be compared for equality before anything is measured.
 */

const EMPLOYEE = 'id firstName lastName phoneNumber registrationNo propertyId metafields { id key value valueType updatedAt }';
const TAX = 'tax { id rate name }';
const CUSTOMER = `id firstName lastName phoneNumber email gender enterpriseId customerDiscountId createdAt updatedAt
    accountDetail { checksCount checksPaidAmount totalCurrentAccount paidCurrentAccount remainingCurrentAccount }
    tags { id name } externalId metafields { id key value valueType updatedAt }`;

/** Every field of Check, nested objects and lists included. */
export const CHECK_SELECTION = `
  id alias createdAt updatedAt closedAt businessDate femaleCover maleCover childCover note sequence sequentialId status
  deliveryStatus propertyId shiftId extras
  revenueCenter { id name }
  employee { ${EMPLOYEE} }
  table { id name }
  salesChannel { id name }
  customer { ${CUSTOMER} }
  delivery { address addressId recipient paymentNames }
  serviceCharge { id serviceChargeId businessDate amount taxAmount netAmount ${TAX} }
  summary { originalItemsAmount originalTaxesAmount complimentariesAmount discountsAmount taxesAmount serviceChargeAmount
    paidAmount unpaidAmount paidServiceChargeAmount totalAmount baseAmount offerAmount }
  discounts { id businessDate source value discountAmount discountId name type annotation }
  payments { id businessDate paymentTypeId paidAmount device { id name } extras }
  items { id parentCheckItemId reasonId businessDate status paymentStatus complimentary unitType quantity notes isCombo
    summary { discountAmount taxAmount totalAmount originalAmount originalTaxAmount } ${TAX} item { id name type sourceId } }
  offers { id offerId name value }`;

/** Every field of Reservation but the linked check, which each operation selects as it needs. */
const RESERVATION_FIELDS = `
  id type status date estimatedDischargedAt dischargedAt createdAt createdBy assignedAt guestCount occupiedSeatCount
  maleCover femaleCover childCover note hotelRoomNumber revenueCenterId childRevenueCenterId storeId tableId tableIds
  tableNames customer { id firstName lastName nickname isAnonym primaryPhoneNumber typeName } reservationPayment
  publicUrl isDraft`;

/**
 * S1id is S1 sent by its trusted-document id (no query text), for the by-id figure beside S1's. S1d and S2d are S1
 * and S2 with each connection sending its own credentials (`bench/scenarios.ts`), so nothing is shared between them.
 */
export type ScenarioName = 'S1' | 'S1id' | 'S1d' | 'S2' | 'S2d' | 'S3';

export interface BenchOperation {
  operationName: string;
  query: string;
}

/** The operation names are what the baseline dispatches on. */
const S1: BenchOperation = { operationName: 'BenchCheck', query: `query BenchCheck($id: ID!) { check(id: $id) { ${CHECK_SELECTION} } }` };

const S2: BenchOperation = {
  operationName: 'BenchDay',
  query: `query BenchDay($date: Date!) {
      reservations(date: $date, perPage: 50) {
        pageInfo { totalCount currentPage perPage totalPages hasNextPage }
        nodes { ${RESERVATION_FIELDS} check { ${CHECK_SELECTION} } }
      }
    }`,
};

export const OPERATIONS: Record<ScenarioName, BenchOperation> = {
  S1,
  S1id: S1,
  S1d: S1,
  S2,
  S2d: S2,
  S3: {
    operationName: 'BenchBook',
    query: `mutation BenchBook($input: CreateReservationInput!) { createReservation(input: $input) { reservation { ${RESERVATION_FIELDS} } } }`,
  },
};

/** Scenarios whose request names its document by id (Apollo's persisted query extension), as Apollo Client's persisted query list link sends it. */
const BY_ID: ReadonlySet<ScenarioName> = new Set(['S1id']);

/** The trusted-document id of a scenario's document: the SHA-256 of its text. */
export function documentId(scenario: ScenarioName): string {
  return sha256Hex(OPERATIONS[scenario].query);
}

/** The POST body of one scenario's request. The baseline dispatches on `operationName`, so it serves both forms. */
export function requestBody(scenario: ScenarioName, variables: Record<string, unknown>): string {
  const { operationName, query } = OPERATIONS[scenario];
  if (BY_ID.has(scenario)) return JSON.stringify({ operationName, variables, extensions: { persistedQuery: { version: 1, sha256Hash: documentId(scenario) } } });
  return JSON.stringify({ operationName, query, variables });
}

/** The trusted-document manifest (TRUSTED_DOCUMENTS) holding the by-id scenarios' documents. */
export function benchManifest(): string {
  const operations = [...BY_ID].map((name) => {
    const { operationName, query } = OPERATIONS[name];
    return { id: documentId(name), name: operationName, type: 'query', body: query };
  });
  return JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 1, operations });
}
