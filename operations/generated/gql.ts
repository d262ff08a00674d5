/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "mutation Book($input: CreateReservationInput!) {\n  createReservation(input: $input) {\n    reservation {\n      ...ReservationSummary\n      publicUrl\n    }\n  }\n}": typeof types.BookDocument,
    "mutation BookOnCalendar($input: CreateCalendarReservationInput!) {\n  createCalendarReservation(input: $input) {\n    reservation {\n      ...ReservationSummary\n      tableId\n    }\n  }\n}": typeof types.BookOnCalendarDocument,
    "query CheckDetail($id: ID!) {\n  check(id: $id) {\n    ...CheckTotals\n    ...CheckLines\n    createdAt\n    updatedAt\n    closedAt\n    businessDate\n    note\n    revenueCenter {\n      id\n      name\n    }\n    table {\n      id\n      name\n    }\n    employee {\n      id\n      firstName\n      lastName\n    }\n    customer {\n      id\n      firstName\n      lastName\n      email\n    }\n    serviceCharge {\n      amount\n      taxAmount\n    }\n  }\n}": typeof types.CheckDetailDocument,
    "query DayView($date: Date!, $revenueCenterId: ID, $page: Int = 1, $perPage: Int = 50) {\n  reservations(\n    date: $date\n    revenueCenterId: $revenueCenterId\n    page: $page\n    perPage: $perPage\n  ) {\n    pageInfo {\n      totalCount\n      currentPage\n      totalPages\n      hasNextPage\n    }\n    nodes {\n      ...ReservationSummary\n      check {\n        ...CheckTotals\n      }\n    }\n  }\n}": typeof types.DayViewDocument,
    "fragment CheckLines on Check {\n  items {\n    id\n    status\n    quantity\n    complimentary\n    notes\n    item {\n      id\n      name\n    }\n    summary {\n      totalAmount\n      discountAmount\n    }\n  }\n  discounts {\n    id\n    name\n    discountAmount\n  }\n  payments {\n    id\n    paidAmount\n    paymentTypeId\n  }\n  offers {\n    id\n    name\n    value\n  }\n}": typeof types.CheckLinesFragmentDoc,
    "fragment CheckTotals on Check {\n  id\n  alias\n  status\n  summary {\n    totalAmount\n    paidAmount\n    unpaidAmount\n    discountsAmount\n    serviceChargeAmount\n  }\n}": typeof types.CheckTotalsFragmentDoc,
    "fragment ReservationSummary on Reservation {\n  id\n  date\n  status\n  guestCount\n  tableNames\n  note\n  customer {\n    id\n    firstName\n    lastName\n    primaryPhoneNumber\n  }\n}": typeof types.ReservationSummaryFragmentDoc,
    "mutation AddOffDay($input: CreateOffDayInput!) {\n  createOffDay(input: $input) {\n    offDay {\n      revenueCenterId\n      date\n      endDate\n      partial\n      startTime\n      endTime\n      translations {\n        locale\n        text\n      }\n    }\n  }\n}": typeof types.AddOffDayDocument,
    "mutation SendPaymentLink($input: UpdatePaymentRequestInput!) {\n  updatePaymentRequest(input: $input) {\n    paymentRequest {\n      id\n      amount\n      currency\n      email\n      phoneNumber\n      sendEmail\n      sendSms\n      expirationTime\n      language\n    }\n  }\n}": typeof types.SendPaymentLinkDocument,
    "query Day($date: Date!) {\n  reservations(date: $date, perPage: 50) {\n    pageInfo {\n      totalCount\n      hasNextPage\n    }\n    nodes {\n      id\n      date\n      guestCount\n      status\n      customer {\n        firstName\n        lastName\n      }\n      check {\n        alias\n        status\n        summary {\n          totalAmount\n          unpaidAmount\n        }\n        items {\n          item {\n            name\n          }\n          quantity\n        }\n      }\n    }\n  }\n}\n\nquery OneCheck($id: ID!) {\n  check(id: $id) {\n    alias\n    status\n    createdAt\n    summary {\n      totalAmount\n    }\n    payments {\n      paidAmount\n    }\n  }\n}\n\nquery Employees($page: Int = 1, $perPage: Int = 20) {\n  employees(page: $page, perPage: $perPage) {\n    nodes {\n      firstName\n      lastName\n    }\n    pageInfo {\n      totalPages\n    }\n  }\n}": typeof types.DayDocument,
    "query ReservationDetail($id: ID!) {\n  reservation(id: $id) {\n    ...ReservationSummary\n    type\n    estimatedDischargedAt\n    dischargedAt\n    createdAt\n    createdBy\n    occupiedSeatCount\n    maleCover\n    femaleCover\n    childCover\n    hotelRoomNumber\n    revenueCenterId\n    tableIds\n    publicUrl\n    isDraft\n    reservationPayment\n    check {\n      ...CheckTotals\n      ...CheckLines\n      createdAt\n      closedAt\n      table {\n        id\n        name\n      }\n      employee {\n        id\n        firstName\n        lastName\n      }\n    }\n  }\n}": typeof types.ReservationDetailDocument,
    "query StaffList($page: Int = 1, $perPage: Int = 50) {\n  employees(page: $page, perPage: $perPage) {\n    pageInfo {\n      totalCount\n      currentPage\n      totalPages\n      hasNextPage\n    }\n    nodes {\n      id\n      firstName\n      lastName\n      phoneNumber\n      registrationNo\n    }\n  }\n}": typeof types.StaffListDocument,
};
const documents: Documents = {
    "mutation Book($input: CreateReservationInput!) {\n  createReservation(input: $input) {\n    reservation {\n      ...ReservationSummary\n      publicUrl\n    }\n  }\n}": types.BookDocument,
    "mutation BookOnCalendar($input: CreateCalendarReservationInput!) {\n  createCalendarReservation(input: $input) {\n    reservation {\n      ...ReservationSummary\n      tableId\n    }\n  }\n}": types.BookOnCalendarDocument,
    "query CheckDetail($id: ID!) {\n  check(id: $id) {\n    ...CheckTotals\n    ...CheckLines\n    createdAt\n    updatedAt\n    closedAt\n    businessDate\n    note\n    revenueCenter {\n      id\n      name\n    }\n    table {\n      id\n      name\n    }\n    employee {\n      id\n      firstName\n      lastName\n    }\n    customer {\n      id\n      firstName\n      lastName\n      email\n    }\n    serviceCharge {\n      amount\n      taxAmount\n    }\n  }\n}": types.CheckDetailDocument,
    "query DayView($date: Date!, $revenueCenterId: ID, $page: Int = 1, $perPage: Int = 50) {\n  reservations(\n    date: $date\n    revenueCenterId: $revenueCenterId\n    page: $page\n    perPage: $perPage\n  ) {\n    pageInfo {\n      totalCount\n      currentPage\n      totalPages\n      hasNextPage\n    }\n    nodes {\n      ...ReservationSummary\n      check {\n        ...CheckTotals\n      }\n    }\n  }\n}": types.DayViewDocument,
    "fragment CheckLines on Check {\n  items {\n    id\n    status\n    quantity\n    complimentary\n    notes\n    item {\n      id\n      name\n    }\n    summary {\n      totalAmount\n      discountAmount\n    }\n  }\n  discounts {\n    id\n    name\n    discountAmount\n  }\n  payments {\n    id\n    paidAmount\n    paymentTypeId\n  }\n  offers {\n    id\n    name\n    value\n  }\n}": types.CheckLinesFragmentDoc,
    "fragment CheckTotals on Check {\n  id\n  alias\n  status\n  summary {\n    totalAmount\n    paidAmount\n    unpaidAmount\n    discountsAmount\n    serviceChargeAmount\n  }\n}": types.CheckTotalsFragmentDoc,
    "fragment ReservationSummary on Reservation {\n  id\n  date\n  status\n  guestCount\n  tableNames\n  note\n  customer {\n    id\n    firstName\n    lastName\n    primaryPhoneNumber\n  }\n}": types.ReservationSummaryFragmentDoc,
    "mutation AddOffDay($input: CreateOffDayInput!) {\n  createOffDay(input: $input) {\n    offDay {\n      revenueCenterId\n      date\n      endDate\n      partial\n      startTime\n      endTime\n      translations {\n        locale\n        text\n      }\n    }\n  }\n}": types.AddOffDayDocument,
    "mutation SendPaymentLink($input: UpdatePaymentRequestInput!) {\n  updatePaymentRequest(input: $input) {\n    paymentRequest {\n      id\n      amount\n      currency\n      email\n      phoneNumber\n      sendEmail\n      sendSms\n      expirationTime\n      language\n    }\n  }\n}": types.SendPaymentLinkDocument,
    "query Day($date: Date!) {\n  reservations(date: $date, perPage: 50) {\n    pageInfo {\n      totalCount\n      hasNextPage\n    }\n    nodes {\n      id\n      date\n      guestCount\n      status\n      customer {\n        firstName\n        lastName\n      }\n      check {\n        alias\n        status\n        summary {\n          totalAmount\n          unpaidAmount\n        }\n        items {\n          item {\n            name\n          }\n          quantity\n        }\n      }\n    }\n  }\n}\n\nquery OneCheck($id: ID!) {\n  check(id: $id) {\n    alias\n    status\n    createdAt\n    summary {\n      totalAmount\n    }\n    payments {\n      paidAmount\n    }\n  }\n}\n\nquery Employees($page: Int = 1, $perPage: Int = 20) {\n  employees(page: $page, perPage: $perPage) {\n    nodes {\n      firstName\n      lastName\n    }\n    pageInfo {\n      totalPages\n    }\n  }\n}": types.DayDocument,
    "query ReservationDetail($id: ID!) {\n  reservation(id: $id) {\n    ...ReservationSummary\n    type\n    estimatedDischargedAt\n    dischargedAt\n    createdAt\n    createdBy\n    occupiedSeatCount\n    maleCover\n    femaleCover\n    childCover\n    hotelRoomNumber\n    revenueCenterId\n    tableIds\n    publicUrl\n    isDraft\n    reservationPayment\n    check {\n      ...CheckTotals\n      ...CheckLines\n      createdAt\n      closedAt\n      table {\n        id\n        name\n      }\n      employee {\n        id\n        firstName\n        lastName\n      }\n    }\n  }\n}": types.ReservationDetailDocument,
    "query StaffList($page: Int = 1, $perPage: Int = 50) {\n  employees(page: $page, perPage: $perPage) {\n    pageInfo {\n      totalCount\n      currentPage\n      totalPages\n      hasNextPage\n    }\n    nodes {\n      id\n      firstName\n      lastName\n      phoneNumber\n      registrationNo\n    }\n  }\n}": types.StaffListDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation Book($input: CreateReservationInput!) {\n  createReservation(input: $input) {\n    reservation {\n      ...ReservationSummary\n      publicUrl\n    }\n  }\n}"): (typeof documents)["mutation Book($input: CreateReservationInput!) {\n  createReservation(input: $input) {\n    reservation {\n      ...ReservationSummary\n      publicUrl\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation BookOnCalendar($input: CreateCalendarReservationInput!) {\n  createCalendarReservation(input: $input) {\n    reservation {\n      ...ReservationSummary\n      tableId\n    }\n  }\n}"): (typeof documents)["mutation BookOnCalendar($input: CreateCalendarReservationInput!) {\n  createCalendarReservation(input: $input) {\n    reservation {\n      ...ReservationSummary\n      tableId\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query CheckDetail($id: ID!) {\n  check(id: $id) {\n    ...CheckTotals\n    ...CheckLines\n    createdAt\n    updatedAt\n    closedAt\n    businessDate\n    note\n    revenueCenter {\n      id\n      name\n    }\n    table {\n      id\n      name\n    }\n    employee {\n      id\n      firstName\n      lastName\n    }\n    customer {\n      id\n      firstName\n      lastName\n      email\n    }\n    serviceCharge {\n      amount\n      taxAmount\n    }\n  }\n}"): (typeof documents)["query CheckDetail($id: ID!) {\n  check(id: $id) {\n    ...CheckTotals\n    ...CheckLines\n    createdAt\n    updatedAt\n    closedAt\n    businessDate\n    note\n    revenueCenter {\n      id\n      name\n    }\n    table {\n      id\n      name\n    }\n    employee {\n      id\n      firstName\n      lastName\n    }\n    customer {\n      id\n      firstName\n      lastName\n      email\n    }\n    serviceCharge {\n      amount\n      taxAmount\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query DayView($date: Date!, $revenueCenterId: ID, $page: Int = 1, $perPage: Int = 50) {\n  reservations(\n    date: $date\n    revenueCenterId: $revenueCenterId\n    page: $page\n    perPage: $perPage\n  ) {\n    pageInfo {\n      totalCount\n      currentPage\n      totalPages\n      hasNextPage\n    }\n    nodes {\n      ...ReservationSummary\n      check {\n        ...CheckTotals\n      }\n    }\n  }\n}"): (typeof documents)["query DayView($date: Date!, $revenueCenterId: ID, $page: Int = 1, $perPage: Int = 50) {\n  reservations(\n    date: $date\n    revenueCenterId: $revenueCenterId\n    page: $page\n    perPage: $perPage\n  ) {\n    pageInfo {\n      totalCount\n      currentPage\n      totalPages\n      hasNextPage\n    }\n    nodes {\n      ...ReservationSummary\n      check {\n        ...CheckTotals\n      }\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "fragment CheckLines on Check {\n  items {\n    id\n    status\n    quantity\n    complimentary\n    notes\n    item {\n      id\n      name\n    }\n    summary {\n      totalAmount\n      discountAmount\n    }\n  }\n  discounts {\n    id\n    name\n    discountAmount\n  }\n  payments {\n    id\n    paidAmount\n    paymentTypeId\n  }\n  offers {\n    id\n    name\n    value\n  }\n}"): (typeof documents)["fragment CheckLines on Check {\n  items {\n    id\n    status\n    quantity\n    complimentary\n    notes\n    item {\n      id\n      name\n    }\n    summary {\n      totalAmount\n      discountAmount\n    }\n  }\n  discounts {\n    id\n    name\n    discountAmount\n  }\n  payments {\n    id\n    paidAmount\n    paymentTypeId\n  }\n  offers {\n    id\n    name\n    value\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "fragment CheckTotals on Check {\n  id\n  alias\n  status\n  summary {\n    totalAmount\n    paidAmount\n    unpaidAmount\n    discountsAmount\n    serviceChargeAmount\n  }\n}"): (typeof documents)["fragment CheckTotals on Check {\n  id\n  alias\n  status\n  summary {\n    totalAmount\n    paidAmount\n    unpaidAmount\n    discountsAmount\n    serviceChargeAmount\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "fragment ReservationSummary on Reservation {\n  id\n  date\n  status\n  guestCount\n  tableNames\n  note\n  customer {\n    id\n    firstName\n    lastName\n    primaryPhoneNumber\n  }\n}"): (typeof documents)["fragment ReservationSummary on Reservation {\n  id\n  date\n  status\n  guestCount\n  tableNames\n  note\n  customer {\n    id\n    firstName\n    lastName\n    primaryPhoneNumber\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation AddOffDay($input: CreateOffDayInput!) {\n  createOffDay(input: $input) {\n    offDay {\n      revenueCenterId\n      date\n      endDate\n      partial\n      startTime\n      endTime\n      translations {\n        locale\n        text\n      }\n    }\n  }\n}"): (typeof documents)["mutation AddOffDay($input: CreateOffDayInput!) {\n  createOffDay(input: $input) {\n    offDay {\n      revenueCenterId\n      date\n      endDate\n      partial\n      startTime\n      endTime\n      translations {\n        locale\n        text\n      }\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation SendPaymentLink($input: UpdatePaymentRequestInput!) {\n  updatePaymentRequest(input: $input) {\n    paymentRequest {\n      id\n      amount\n      currency\n      email\n      phoneNumber\n      sendEmail\n      sendSms\n      expirationTime\n      language\n    }\n  }\n}"): (typeof documents)["mutation SendPaymentLink($input: UpdatePaymentRequestInput!) {\n  updatePaymentRequest(input: $input) {\n    paymentRequest {\n      id\n      amount\n      currency\n      email\n      phoneNumber\n      sendEmail\n      sendSms\n      expirationTime\n      language\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query Day($date: Date!) {\n  reservations(date: $date, perPage: 50) {\n    pageInfo {\n      totalCount\n      hasNextPage\n    }\n    nodes {\n      id\n      date\n      guestCount\n      status\n      customer {\n        firstName\n        lastName\n      }\n      check {\n        alias\n        status\n        summary {\n          totalAmount\n          unpaidAmount\n        }\n        items {\n          item {\n            name\n          }\n          quantity\n        }\n      }\n    }\n  }\n}\n\nquery OneCheck($id: ID!) {\n  check(id: $id) {\n    alias\n    status\n    createdAt\n    summary {\n      totalAmount\n    }\n    payments {\n      paidAmount\n    }\n  }\n}\n\nquery Employees($page: Int = 1, $perPage: Int = 20) {\n  employees(page: $page, perPage: $perPage) {\n    nodes {\n      firstName\n      lastName\n    }\n    pageInfo {\n      totalPages\n    }\n  }\n}"): (typeof documents)["query Day($date: Date!) {\n  reservations(date: $date, perPage: 50) {\n    pageInfo {\n      totalCount\n      hasNextPage\n    }\n    nodes {\n      id\n      date\n      guestCount\n      status\n      customer {\n        firstName\n        lastName\n      }\n      check {\n        alias\n        status\n        summary {\n          totalAmount\n          unpaidAmount\n        }\n        items {\n          item {\n            name\n          }\n          quantity\n        }\n      }\n    }\n  }\n}\n\nquery OneCheck($id: ID!) {\n  check(id: $id) {\n    alias\n    status\n    createdAt\n    summary {\n      totalAmount\n    }\n    payments {\n      paidAmount\n    }\n  }\n}\n\nquery Employees($page: Int = 1, $perPage: Int = 20) {\n  employees(page: $page, perPage: $perPage) {\n    nodes {\n      firstName\n      lastName\n    }\n    pageInfo {\n      totalPages\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query ReservationDetail($id: ID!) {\n  reservation(id: $id) {\n    ...ReservationSummary\n    type\n    estimatedDischargedAt\n    dischargedAt\n    createdAt\n    createdBy\n    occupiedSeatCount\n    maleCover\n    femaleCover\n    childCover\n    hotelRoomNumber\n    revenueCenterId\n    tableIds\n    publicUrl\n    isDraft\n    reservationPayment\n    check {\n      ...CheckTotals\n      ...CheckLines\n      createdAt\n      closedAt\n      table {\n        id\n        name\n      }\n      employee {\n        id\n        firstName\n        lastName\n      }\n    }\n  }\n}"): (typeof documents)["query ReservationDetail($id: ID!) {\n  reservation(id: $id) {\n    ...ReservationSummary\n    type\n    estimatedDischargedAt\n    dischargedAt\n    createdAt\n    createdBy\n    occupiedSeatCount\n    maleCover\n    femaleCover\n    childCover\n    hotelRoomNumber\n    revenueCenterId\n    tableIds\n    publicUrl\n    isDraft\n    reservationPayment\n    check {\n      ...CheckTotals\n      ...CheckLines\n      createdAt\n      closedAt\n      table {\n        id\n        name\n      }\n      employee {\n        id\n        firstName\n        lastName\n      }\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query StaffList($page: Int = 1, $perPage: Int = 50) {\n  employees(page: $page, perPage: $perPage) {\n    pageInfo {\n      totalCount\n      currentPage\n      totalPages\n      hasNextPage\n    }\n    nodes {\n      id\n      firstName\n      lastName\n      phoneNumber\n      registrationNo\n    }\n  }\n}"): (typeof documents)["query StaffList($page: Int = 1, $perPage: Int = 50) {\n  employees(page: $page, perPage: $perPage) {\n    pageInfo {\n      totalCount\n      currentPage\n      totalPages\n      hasNextPage\n    }\n    nodes {\n      id\n      firstName\n      lastName\n      phoneNumber\n      registrationNo\n    }\n  }\n}"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;