import type { Random } from '../random';
import type { Customer, Employee, Metafield, NamedRef, ReservationCustomerProfile } from '../records';
import { unixSeconds } from '../venueTime';
import type { VenueSeed } from './venueSeed';

const DAY_S = 86_400;

export interface StaffMember {
  employee: Employee;
  role: string;
}

export function buildEmployees(seed: VenueSeed, random: Random, propertyId: string, now: Date): StaffMember[] {
  return seed.staff.map((person, i) => {
    const hired = `20${String(random.int(18, 24))}-${pad(random.int(1, 12))}-${pad(random.int(1, 28))}`;
    const employee: Employee = {
      id: random.uuid(),
      first_name: person.first,
      last_name: person.last,
      phone_number: phone(seed, random),
      registration_no: `${seed.codePrefix}-${String(i + 1).padStart(4, '0')}`,
      property_id: propertyId,
      metafields: [
        metafield(random, 'role', person.role, 'string', now, i),
        metafield(random, 'hire_date', hired, 'date', now, i),
      ],
    };
    return { employee, role: person.role };
  });
}

/** POS customers and, with the same ids, the reservation service's customer book. */
export function buildCustomers(seed: VenueSeed, random: Random, enterpriseId: string, now: Date) {
  const tag = (name: string): NamedRef => ({ id: random.uuid(), name });
  const tags = { vip: tag('VIP'), regular: tag('Regular'), vegetarian: tag('Vegetarian'), nuts: tag('Allergy: nuts') };
  const discountIds = { vip: random.uuid(), regular: random.uuid(), standard: random.uuid() };
  const customers: Customer[] = [];
  const profiles: ReservationCustomerProfile[] = [];
  seed.customers.forEach((person, i) => {
    const customerTags = [
      ...(i % 6 === 0 ? [tags.vip] : []), ...(i % 3 === 1 ? [tags.regular] : []),
      ...(i % 5 === 2 ? [tags.vegetarian] : []), ...(i % 11 === 4 ? [tags.nuts] : []),
    ];
    const createdAt = unixSeconds(now) - random.int(30, 700) * DAY_S;
    const birthday = `19${random.int(60, 99)}-${pad(random.int(1, 12))}-${pad(random.int(1, 28))}`;
    const customer: Customer = {
      id: random.uuid(),
      first_name: person.first,
      last_name: person.last,
      phone_number: phone(seed, random),
      email: `${asciiLower(person.first)}.${asciiLower(person.last)}@example.com`,
      gender: person.gender,
      enterprise_id: enterpriseId,
      customer_discount_id: i % 6 === 0 ? discountIds.vip : i % 3 === 1 ? discountIds.regular : discountIds.standard,
      created_at: createdAt,
      updated_at: createdAt + random.int(1, 25) * DAY_S,
      // Filled in once the checks exist, so the totals agree with them.
      account_detail: { checks_count: 0, checks_paid_amount: 0, total_current_account: 0, paid_current_account: 0, remaining_current_account: 0 },
      tags: customerTags,
      external_id: `${seed.codePrefix}-CRM-${10001 + i}`,
      metafields: [
        metafield(random, 'newsletter_opt_in', i % 2 === 0 ? 'true' : 'false', 'boolean', now, i),
        ...(i % 4 === 0 ? [metafield(random, 'birthday', birthday, 'date', now, i)] : []),
      ],
    };
    customers.push(customer);
    profiles.push({
      id: customer.id, first_name: person.first, last_name: person.last, nickname: person.nickname ?? null,
      is_anonym: false, primary_phone_number: customer.phone_number, type_name: 'normal', email: customer.email,
    });
  });
  return { customers, profiles };
}

function metafield(random: Random, key: string, value: string, valueType: string, now: Date, i: number): Metafield {
  return { id: random.uuid(), key, value, value_type: valueType, updated_at: unixSeconds(now) - (3 + (i % 40)) * DAY_S };
}

/** Digits with the country prefix, the form the payment request document asks for. */
function phone(seed: VenueSeed, random: Random): string {
  return `${seed.phonePrefix}${String(random.int(0, 9_999_999)).padStart(7, '0')}`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** E-mail local parts in plain ASCII: "Çelik" → "celik", "Yıldız" → "yildiz". */
function asciiLower(text: string): string {
  return text.replace(/ı/g, 'i').normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z]/g, '');
}

/**
 * account_detail agrees with the checks: their count and what was paid
 * (whole currency units: the document types these as integers without a
 * unit). Every eighth customer runs a house account.
 */
export function fillAccountDetails(customers: readonly Customer[], checks: ReadonlyArray<{ customer: Customer | null; summary: { paid_amount: string } }>): void {
  customers.forEach((customer, i) => {
    const own = checks.filter((c) => c.customer?.id === customer.id);
    const paidCents = own.reduce((a, c) => a + Math.round(Number(c.summary.paid_amount) * 100), 0);
    const houseAccount = i % 8 === 5;
    customer.account_detail = {
      checks_count: own.length,
      checks_paid_amount: Math.floor(paidCents / 100),
      total_current_account: houseAccount ? 250 : 0,
      paid_current_account: houseAccount ? 100 : 0,
      remaining_current_account: houseAccount ? 150 : 0,
    };
  });
}
