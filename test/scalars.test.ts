import { isCalendarDate } from '../src/scalars';

describe('isCalendarDate', () => {
  it.each([
    ['2026-12-31', true],
    ['2024-02-29', true],
    ['2000-02-29', true],
    ['2023-02-29', false],
    ['1900-02-29', false],
    ['2026-04-31', false],
    ['2026-04-30', true],
    ['2026-13-01', false],
    ['2026-00-10', false],
    ['2026-01-00', false],
    ['2026-1-01', false],
  ])('says %s is a calendar day: %s', (text, expected) => {
    expect(isCalendarDate(text)).toBe(expected);
  });
});
