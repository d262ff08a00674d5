import type { SandboxReply } from '../http';
import type { OffDayRecord, OffDayTranslation } from '../records';
import { findTypeError, given, type BodySpec } from '../validate';
import { isLocalTime } from '../venueTime';
import type { EndpointContext } from './context';
import { RESERVATION_ERRORS as E } from './errors';
import { localDateTimeOf, optionalLocalDateTimeOf, revenueCenterOf } from './inputs';

/** "Off day (request body of off-day creation)" in the document. */
const OFF_DAY_BODY: BodySpec = {
  revenue_center_id: 'string', child_revenue_center_ids: 'string[]', type: 'integer', date: 'string', end_date: 'string',
  active_for_reservations: 'boolean', active_for_online: 'boolean', active_for_requests: 'boolean',
  is_note_visible: 'boolean', partial: 'boolean', start_time: 'string', end_time: 'string', days: 'integer[]',
  translations: 'object[]',
};

/** The document shows en, tr, de and ru in use; the sandbox takes any well-formed BCP 47 tag, as the gateway does. */
function isLocale(tag: unknown): boolean {
  if (typeof tag !== 'string') return false;
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

/** POST /api/v1/off-days → 200 with no body (documented). */
export function createOffDay(ctx: EndpointContext): SandboxReply {
  const { body, tenant } = ctx;
  const typeError = findTypeError(body, OFF_DAY_BODY);
  if (typeError) return E.invalidParameter(typeError);
  const rc = revenueCenterOf(tenant, body.revenue_center_id);
  if (!rc.ok) return rc.reply;
  for (const childId of (body.child_revenue_center_ids as string[] | undefined) ?? []) {
    const child = revenueCenterOf(tenant, childId, 'child_revenue_center_ids');
    if (!child.ok) return child.reply;
  }
  const date = localDateTimeOf('date', body.date);
  if (!date.ok) return date.reply;
  const endDate = optionalLocalDateTimeOf('end_date', body.end_date);
  if (!endDate.ok) return endDate.reply;
  for (const field of ['start_time', 'end_time'] as const) {
    if (given(body[field]) && !isLocalTime(body[field])) return E.invalidParameter(`${field} must be a time of the form HH:MM`);
  }
  const translations = (body.translations as OffDayTranslation[] | undefined) ?? [];
  const badTranslation = translations.find((t) => !isLocale(t.locale) || typeof t.text !== 'string');
  if (badTranslation) return E.invalidParameter('translations need a BCP 47 locale and a text');

  const offDay: OffDayRecord = { ...pickDocumented(body), id: ctx.newId(), store_id: tenant.store_id, revenue_center_id: rc.value.id, date: body.date as string };
  tenant.off_days.push(offDay);
  return { status: 200 };
}

/** Only the documented fields are kept, so a stored off day never carries whatever else a client sent. */
function pickDocumented(body: Record<string, unknown>): Partial<OffDayRecord> {
  return Object.fromEntries(Object.keys(OFF_DAY_BODY).filter((k) => given(body[k])).map((k) => [k, body[k]]));
}
