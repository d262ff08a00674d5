import { InputError } from '../../src/errors/InputError';
import { CreateOffDayArgs } from '../../src/inputs/reservation';
import { parseArgs } from '../../src/inputs/parse';
import { thrownBy } from '../support/failures';

const CENTER = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

/** The arguments of an off day at CENTER on Christmas Eve, with `input` over them. */
const offDay = (input: Record<string, unknown>) => ({ input: { revenueCenterId: CENTER, date: '2026-12-24T00:00', ...input } });

describe('CreateOffDayArgs', () => {
  it('maps a partial off day to the upstream body', () => {
    const { input } = parseArgs(CreateOffDayArgs, {
      input: { revenueCenterId: CENTER, date: '2026-12-24T00:00', endDate: '2026-12-26T00:00', partial: true, startTime: '12:00', endTime: '15:00', days: [0, 6] },
    });
    expect(input).toMatchObject({ revenue_center_id: CENTER, date: '2026-12-24 00:00', end_date: '2026-12-26 00:00', partial: true, start_time: '12:00', end_time: '15:00', days: [0, 6] });
  });

  it.each([
    [{ endDate: '2026-12-23T00:00' }, 'input.endDate', 'must not be before date'],
    [{ partial: true, endTime: '15:00' }, 'input.startTime', 'is required when partial is true'],
    [{ partial: true, startTime: '12:00' }, 'input.endTime', 'is required when partial is true'],
    [{ startTime: '15:00', endTime: '12:00' }, 'input.endTime', 'must be after startTime'],
    [{ days: [1, -1] }, 'input.days[1]', 'must not be negative'],
    [{ childRevenueCenterIds: ['nope'] }, 'input.childRevenueCenterIds[0]', 'must be a UUID'],
  ])('refuses %p naming %s', (input, field, message) => {
    expect(thrownBy(InputError, () => parseArgs(CreateOffDayArgs, offDay(input)))).toMatchObject({ field, message: `${field}: ${message}` });
  });

  it('refuses a malformed locale tag of a translation, naming it', () => {
    expect(thrownBy(InputError, () => parseArgs(CreateOffDayArgs, offDay({ translations: [{ locale: 'not a tag', text: 'Closed' }] }))).field).toBe('input.translations[0].locale');
  });
});
