import { randomUUID } from 'node:crypto';
import type { CheckDto, EmployeeDto } from '../../src/upstreams/pos/dto';
import type { ReservationDto } from '../../src/upstreams/reservation/dto';
import type { PaginationMetaDto } from '../../src/upstreams/schemas';

/**
 * Full, valid upstream records per the zod DTOs: every documented field present, none null, so a test that
 * removes or breaks one field knows that field is the only thing wrong.
 */

export function employeeRecord(overrides: Partial<EmployeeDto> = {}): EmployeeDto {
  return {
    id: randomUUID(),
    first_name: 'Ayşe',
    last_name: 'Yılmaz',
    phone_number: '+905551112233',
    registration_no: 'EMP-0042',
    property_id: randomUUID(),
    metafields: [{ id: randomUUID(), key: 'badge', value: 'gold', value_type: 'string', updated_at: 1_763_740_800 }],
    ...overrides,
  };
}

export function checkRecord(overrides: Partial<CheckDto> = {}): CheckDto {
  const tax = { id: randomUUID(), rate: 10, name: 'VAT 10%' };
  return {
    id: randomUUID(),
    alias: 'T12-1',
    created_at: 1_763_740_800,
    updated_at: 1_763_744_400,
    closed_at: 1_763_748_000,
    business_date: '2026-11-21',
    female_cover: 1,
    male_cover: 1,
    child_cover: 0,
    note: 'window seat',
    sequence: 17,
    sequential_id: 1017,
    status: 'closed',
    delivery_status: 'none',
    property_id: randomUUID(),
    revenue_center: { id: randomUUID(), name: 'Terrace' },
    shift_id: randomUUID(),
    employee: employeeRecord(),
    table: { id: randomUUID(), name: 'T12' },
    sales_channel: { id: randomUUID(), name: 'Dine-in' },
    customer: {
      id: randomUUID(),
      first_name: 'Can',
      last_name: 'Demir',
      phone_number: '+905559998877',
      email: 'can@example.com',
      gender: 'male',
      enterprise_id: randomUUID(),
      customer_discount_id: randomUUID(),
      created_at: 1_700_000_000,
      updated_at: 1_763_740_800,
      account_detail: {
        checks_count: 12,
        checks_paid_amount: 3400,
        total_current_account: 0,
        paid_current_account: 0,
        remaining_current_account: 0,
      },
      tags: [{ id: randomUUID(), name: 'regular' }],
      external_id: 'crm-881',
      metafields: [],
    },
    delivery: { address: 'Bağdat Cd. 1', address_id: randomUUID(), recipient: 'Can Demir', payment_names: ['cash'] },
    extras: { source: 'tablet' },
    check_service_charge: {
      id: randomUUID(),
      service_charge_id: randomUUID(),
      business_date: '2026-11-21',
      amount: '12.55',
      tax_amount: '1.14',
      net_amount: '11.41',
      tax,
    },
    summary: {
      original_items_amount: '125.50',
      original_taxes_amount: '11.41',
      complimentaries_amount: '0.00',
      discounts_amount: '0.00',
      taxes_amount: '11.41',
      service_charge_amount: '12.55',
      paid_amount: '138.05',
      unpaid_amount: '0.00',
      paid_service_charge_amount: '12.55',
      total_amount: '138.05',
      base_amount: '125.50',
      offer_amount: '0.00',
    },
    check_discounts: [
      {
        id: randomUUID(),
        business_date: '2026-11-21',
        source: 'manager',
        value: '0.00',
        discount_amount: '0.00',
        discount_id: randomUUID(),
        name: 'None',
        type: 'percent',
        annotation: 'test',
      },
    ],
    check_payments: [
      {
        id: randomUUID(),
        business_date: '2026-11-21',
        payment_type_id: randomUUID(),
        paid_amount: '138.05',
        device: { id: randomUUID(), name: 'Till 1' },
        extras: { last4: '4242' },
      },
    ],
    check_items: [
      {
        id: randomUUID(),
        parent_check_item_id: randomUUID(),
        reason_id: randomUUID(),
        business_date: '2026-11-21',
        status: 'served',
        payment_status: 'paid',
        complimentary: false,
        unit_type: 'piece',
        quantity: '2',
        notes: ['no onions'],
        is_combo: false,
        summary: { discount_amount: '0.00', tax_amount: '11.41', total_amount: '125.50', original_amount: '125.50', original_tax_amount: '11.41' },
        tax,
        item: { id: randomUUID(), name: 'Köfte', type: 'product', source_id: randomUUID() },
      },
    ],
    check_offers: [{ id: randomUUID(), offer_id: randomUUID(), name: 'Happy hour', value: '10%' }],
    ...overrides,
  };
}

export function reservationRecord(overrides: Partial<ReservationDto> = {}): ReservationDto {
  const tableId = randomUUID();
  return {
    id: randomUUID(),
    type: 'reservation',
    status: 'confirmed',
    date: '2026-11-21T19:30:00+03:00',
    estimated_discharged_at: '2026-11-21T21:30:00+03:00',
    discharged_at: '2026-11-21T21:45:00+03:00',
    created_at: '2026-11-01T10:00:00+03:00',
    created_by: 'api',
    assigned_at: '2026-11-21T19:31:00+03:00',
    guest_count: 4,
    occupied_seat_count: 4,
    male_cover: 2,
    female_cover: 1,
    child_cover: 1,
    note: 'birthday',
    hotel_room_number: '1204',
    revenue_center_id: randomUUID(),
    child_revenue_center_id: randomUUID(),
    store_id: randomUUID(),
    table_id: tableId,
    table_ids: [tableId],
    table_names: 'T12',
    customer: {
      id: randomUUID(),
      first_name: 'Can',
      last_name: 'Demir',
      nickname: 'cd',
      is_anonym: false,
      primary_phone_number: '+905559998877',
      type_name: 'regular',
    },
    check: { id: randomUUID() },
    reservation_payment: { amount: 100, currency: 'TRY' },
    public_url: 'https://book.example.com/r/abc',
    is_draft: false,
    ...overrides,
  };
}

export function pageMeta(overrides: Partial<PaginationMetaDto> = {}): PaginationMetaDto {
  return { total_count: 1, current_page: 1, per_page_count: 50, total_page: 1, has_next_page: false, ...overrides };
}

/**
 * Every header a client might send the gateway, lower-cased as Node gives them: both services' credentials and
 * the kind of junk that must never reach an upstream.
 */
export const CLIENT_HEADERS: Readonly<Record<string, string>> = {
  'reservation-access-token': 'res-access-token-value',
  authorization: 'Bearer reservation-api-key',
  employee_token: 'employee-token-value',
  store_pin_code: '4321',
  slug_name: 'venue-slug',
  'pos-access-token': 'pos-access-token-value',
  cookie: 'session=abc123',
  'user-agent': 'Mozilla/5.0 (test)',
  'x-forwarded-for': '203.0.113.9',
  'x-real-ip': '203.0.113.9',
  forwarded: 'for=203.0.113.9;host=evil.example',
  host: 'evil.example',
  'x-forwarded-host': 'evil.example',
  origin: 'https://evil.example',
  referer: 'https://evil.example/page',
};

/** A `get` over a header map, as the context function hands to ServiceCredentials.from. */
export function headerLookup(headers: Readonly<Record<string, string>>): (lowerName: string) => string | undefined {
  return (name) => headers[name];
}

/** Headers the HTTP client itself adds to every request; everything else an upstream sees must be accounted for. */
export const TRANSPORT_HEADERS: ReadonlySet<string> = new Set(['host', 'connection', 'content-length', 'content-type', 'accept', 'transfer-encoding']);
