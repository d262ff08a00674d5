import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Pool } from 'undici';
import { ServiceCredentials } from '../src/credentials';
import type { CheckDto, CustomerDto, EmployeeDto, MetafieldDto, NamedDto, TaxDto } from '../src/upstreams/pos/dto';
import type { ReservationDto, ReservationListDto } from '../src/upstreams/reservation/dto';

/**
 * The benchmark's baseline: what Node can do for the same work without GraphQL. A bare node:http server with one
 * undici pool per upstream makes the same upstream calls as the gateway and writes the same JSON, mapped by hand.
 * It reads the gateway's request bodies and dispatches on `operationName`; it validates nothing and handles no
 * upstream failure, so it is the floor a gateway can approach, not a rival implementation. Upstream bodies are
 * typed with the gateway's DTO types but not checked at run time (that check is part of what the gateway pays for).
 */
export interface BaselineOptions {
  reservationUrl: string;
  posUrl: string;
  /** Keep-alive connections per upstream; the gateway's default is 128. */
  connections?: number;
}

export interface Baseline {
  server: Server;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
type Variables = Record<string, unknown>;
export interface BookInput {
  revenueCenterId: string;
  customer?: { firstName: string; lastName?: string; email?: string };
  guestCount?: number;
  date: string;
}

export function createBaseline(options: BaselineOptions): Baseline {
  const connections = options.connections ?? 128;
  const reservation = new Pool(options.reservationUrl, { connections });
  const pos = new Pool(options.posUrl, { connections });

  const getJson = async <T>(pool: Pool, path: string, headers: Record<string, string>): Promise<T> => {
    const res = await pool.request({ method: 'GET', path, headers });
    return (await res.body.json()) as T;
  };
  // The same credential headers the gateway forwards, each only to its own service, under the same names.
  const headersFor = (service: 'reservation' | 'pos') => (req: IncomingMessage) => {
    const header = (name: string) => {
      const value = req.headers[name];
      return typeof value === 'string' ? value : undefined;
    };
    return { accept: 'application/json', ...ServiceCredentials.from(service, header).headers(service) };
  };
  const posHeaders = headersFor('pos');
  const reservationHeaders = headersFor('reservation');

  const operations: Record<string, (req: IncomingMessage, variables: Variables) => Promise<Json>> = {
    async BenchCheck(req, variables) {
      const check = await getJson<CheckDto>(pos, `/checks/${encodeURIComponent(String(variables.id))}`, posHeaders(req));
      return { check: mapCheck(check) };
    },
    async BenchDay(req, variables) {
      const query = new URLSearchParams({ date: String(variables.date), page: '1', per_page: '50' });
      const list = await getJson<ReservationListDto>(reservation, `/v1/reservations?${query.toString()}`, reservationHeaders(req));
      const ids = new Set<string>();
      for (const r of list.reservations) if (r.check?.id) ids.add(r.check.id);
      const checks = new Map<string, Json>();
      await Promise.all([...ids].map(async (id) => checks.set(id, mapCheck(await getJson<CheckDto>(pos, `/checks/${id}`, posHeaders(req))))));
      const meta = list.meta;
      return {
        reservations: {
          pageInfo: { totalCount: meta.total_count, currentPage: meta.current_page, perPage: meta.per_page_count, totalPages: meta.total_page, hasNextPage: meta.has_next_page },
          nodes: list.reservations.map((r) => ({ ...mapReservation(r), check: r.check?.id ? checks.get(r.check.id) : null })),
        },
      };
    },
    async BenchBook(req, variables) {
      const input = variables.input as BookInput;
      const res = await reservation.request({
        method: 'POST',
        path: '/v1/reservations',
        headers: { ...reservationHeaders(req), 'content-type': 'application/json' },
        body: bookingBody(input),
      });
      const body = (await res.body.json()) as { reservation: ReservationDto };
      return { createReservation: { reservation: mapReservation(body.reservation) } };
    },
  };

  const server = createServer((req, res) => {
    if (req.url === '/readyz') return send(res, 200, '{"status":"ready"}');
    readBody(req)
      .then(async (text) => {
        const { operationName, variables } = JSON.parse(text) as { operationName: string; variables: Variables };
        const data = await operations[operationName](req, variables);
        send(res, 200, JSON.stringify({ data }));
      })
      .catch(() => send(res, 500, '{"errors":[{"message":"baseline failed"}]}'));
  });

  return {
    server,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await Promise.all([reservation.close(), pos.close()]);
    },
  };
}

/** The hand mappings below are the upstream records in the contract's field names; the Mercurius reference reuses them. */

/** POS integer timestamps (seconds) in the contract's DateTime form. */
const ts = (v: number | null): string | null => (v === null ? null : `${new Date(v * 1000).toISOString().slice(0, 19)}+00:00`);
const named = (n: NamedDto | null) => n && { id: n.id, name: n.name };
const tax = (t: TaxDto | null) => t && { id: t.id, rate: t.rate, name: t.name };
const metafield = (m: MetafieldDto) => ({ id: m.id, key: m.key, value: m.value, valueType: m.value_type, updatedAt: ts(m.updated_at) });

/** The reservation service's POST body for a booking, as S3 sends it. */
export function bookingBody(input: BookInput): string {
  return JSON.stringify({
    revenue_center_id: input.revenueCenterId,
    customer: input.customer && { first_name: input.customer.firstName, last_name: input.customer.lastName, email: input.customer.email },
    guest_count: input.guestCount,
    date: String(input.date).replace('T', ' '),
  });
}

export function mapCheck(c: CheckDto): Json {
  const e: EmployeeDto | null = c.employee;
  const cu: CustomerDto | null = c.customer;
  const sc = c.check_service_charge;
  const s = c.summary;
  return {
    id: c.id, alias: c.alias, createdAt: ts(c.created_at), updatedAt: ts(c.updated_at), closedAt: ts(c.closed_at), businessDate: c.business_date,
    femaleCover: c.female_cover, maleCover: c.male_cover, childCover: c.child_cover, note: c.note, sequence: c.sequence,
    sequentialId: c.sequential_id, status: c.status, deliveryStatus: c.delivery_status, propertyId: c.property_id, shiftId: c.shift_id,
    extras: c.extras, revenueCenter: named(c.revenue_center), table: named(c.table), salesChannel: named(c.sales_channel),
    employee: e && {
      id: e.id, firstName: e.first_name, lastName: e.last_name, phoneNumber: e.phone_number, registrationNo: e.registration_no,
      propertyId: e.property_id, metafields: e.metafields.map(metafield),
    },
    customer: cu && {
      id: cu.id, firstName: cu.first_name, lastName: cu.last_name, phoneNumber: cu.phone_number, email: cu.email, gender: cu.gender,
      enterpriseId: cu.enterprise_id, customerDiscountId: cu.customer_discount_id, createdAt: ts(cu.created_at), updatedAt: ts(cu.updated_at),
      accountDetail: cu.account_detail && {
        checksCount: cu.account_detail.checks_count, checksPaidAmount: cu.account_detail.checks_paid_amount,
        totalCurrentAccount: cu.account_detail.total_current_account, paidCurrentAccount: cu.account_detail.paid_current_account,
        remainingCurrentAccount: cu.account_detail.remaining_current_account,
      },
      tags: cu.tags.map(named), externalId: cu.external_id, metafields: cu.metafields.map(metafield),
    },
    delivery: c.delivery && { address: c.delivery.address, addressId: c.delivery.address_id, recipient: c.delivery.recipient, paymentNames: c.delivery.payment_names },
    serviceCharge: sc && {
      id: sc.id, serviceChargeId: sc.service_charge_id, businessDate: sc.business_date, amount: sc.amount, taxAmount: sc.tax_amount,
      netAmount: sc.net_amount, tax: tax(sc.tax),
    },
    summary: s && {
      originalItemsAmount: s.original_items_amount, originalTaxesAmount: s.original_taxes_amount, complimentariesAmount: s.complimentaries_amount,
      discountsAmount: s.discounts_amount, taxesAmount: s.taxes_amount, serviceChargeAmount: s.service_charge_amount, paidAmount: s.paid_amount,
      unpaidAmount: s.unpaid_amount, paidServiceChargeAmount: s.paid_service_charge_amount, totalAmount: s.total_amount, baseAmount: s.base_amount,
      offerAmount: s.offer_amount,
    },
    discounts: c.check_discounts.map((d) => ({
      id: d.id, businessDate: d.business_date, source: d.source, value: d.value, discountAmount: d.discount_amount, discountId: d.discount_id,
      name: d.name, type: d.type, annotation: d.annotation,
    })),
    payments: c.check_payments.map((p) => ({
      id: p.id, businessDate: p.business_date, paymentTypeId: p.payment_type_id, paidAmount: p.paid_amount, device: named(p.device), extras: p.extras,
    })),
    items: c.check_items.map((i) => ({
      id: i.id, parentCheckItemId: i.parent_check_item_id, reasonId: i.reason_id, businessDate: i.business_date, status: i.status,
      paymentStatus: i.payment_status, complimentary: i.complimentary, unitType: i.unit_type, quantity: i.quantity, notes: i.notes, isCombo: i.is_combo,
      summary: i.summary && {
        discountAmount: i.summary.discount_amount, taxAmount: i.summary.tax_amount, totalAmount: i.summary.total_amount,
        originalAmount: i.summary.original_amount, originalTaxAmount: i.summary.original_tax_amount,
      },
      tax: tax(i.tax), item: i.item && { id: i.item.id, name: i.item.name, type: i.item.type, sourceId: i.item.source_id },
    })),
    offers: c.check_offers.map((o) => ({ id: o.id, offerId: o.offer_id, name: o.name, value: o.value })),
  };
}

export function mapReservation(r: ReservationDto): Json {
  const cu = r.customer;
  return {
    id: r.id, type: r.type, status: r.status, date: r.date, estimatedDischargedAt: r.estimated_discharged_at, dischargedAt: r.discharged_at,
    createdAt: r.created_at, createdBy: r.created_by, assignedAt: r.assigned_at, guestCount: r.guest_count, occupiedSeatCount: r.occupied_seat_count,
    maleCover: r.male_cover, femaleCover: r.female_cover, childCover: r.child_cover, note: r.note, hotelRoomNumber: r.hotel_room_number,
    revenueCenterId: r.revenue_center_id, childRevenueCenterId: r.child_revenue_center_id, storeId: r.store_id, tableId: r.table_id,
    tableIds: r.table_ids, tableNames: r.table_names,
    customer: cu && {
      id: cu.id, firstName: cu.first_name, lastName: cu.last_name, nickname: cu.nickname, isAnonym: cu.is_anonym,
      primaryPhoneNumber: cu.primary_phone_number, typeName: cu.type_name,
    },
    reservationPayment: r.reservation_payment, publicUrl: r.public_url, isDraft: r.is_draft,
  };
}

function send(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
