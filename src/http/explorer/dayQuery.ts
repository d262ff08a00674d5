/**
 * The first example of docs/clients.md, pre-filled in the explorer: a day's reservations with their POS checks. A test keeps
 * that copy equal to this one.
 */
export const DAY_QUERY = `query Day($date: Date!) {
  reservations(date: $date, perPage: 50) {
    pageInfo { totalCount hasNextPage }
    nodes {
      id date guestCount status
      customer { firstName lastName }
      check { alias status summary { totalAmount unpaidAmount } items { item { name } quantity } }
    }
  }
}
`;
