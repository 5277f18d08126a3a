import { AppError } from '../../src/errors';
import { MAX_RANGE_DAYS, parseDateRange, resolveTimeZone } from '../../src/timeline/date-range';

/** The 400 a call throws: its message and details. */
function refusal(call: () => unknown): AppError {
  try {
    call();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the call to refuse its input');
}

const iso = (range: { from: Date; to: Date }) => [range.from.toISOString(), range.to.toISOString()];

describe('resolveTimeZone', () => {
  it("answers the service's zone when the request names none", () => {
    expect(resolveTimeZone(undefined, 'Europe/Rome')).toBe('Europe/Rome');
    expect(resolveTimeZone(null, 'Europe/Rome')).toBe('Europe/Rome');
  });

  it('takes an IANA name or UTC, without the spaces around it', () => {
    expect(resolveTimeZone('America/New_York', 'Europe/Rome')).toBe('America/New_York');
    expect(resolveTimeZone('  Asia/Tokyo ', 'Europe/Rome')).toBe('Asia/Tokyo');
    expect(resolveTimeZone('UTC', 'Europe/Rome')).toBe('UTC');
  });

  it('refuses an unknown or empty zone with a 400 naming timeZone and the value, never falling back', () => {
    const error = refusal(() => resolveTimeZone('Europe/Atlantis', 'Europe/Rome'));
    expect(error.status).toBe(400);
    expect(error.message).toBe('timeZone "Europe/Atlantis" is not a known time zone: expected an IANA time zone name such as Europe/Rome, or UTC');
    expect(error.details).toEqual([
      { field: 'timeZone', message: 'unknown time zone "Europe/Atlantis": expected an IANA name such as Europe/Rome, or UTC', value: 'Europe/Atlantis' },
    ]);
    expect(refusal(() => resolveTimeZone('', 'Europe/Rome')).details[0]).toMatchObject({ field: 'timeZone', value: '' });
    expect(refusal(() => resolveTimeZone('   ', 'Europe/Rome')).details[0]).toMatchObject({ field: 'timeZone', value: '   ' });
  });

  it('shows a value that is no text as it is, and a long one cut at 40 characters', () => {
    expect(refusal(() => resolveTimeZone(42 as unknown as string, 'Europe/Rome')).message).toMatch(/^timeZone "42" is not a known time zone/);
    const long = `Europe/${'x'.repeat(60)}`;
    expect(refusal(() => resolveTimeZone(long, 'Europe/Rome')).details[0].value).toBe(`${long.slice(0, 40)}…`);
    const forty = `Europe/${'y'.repeat(33)}`;
    expect(refusal(() => resolveTimeZone(forty, 'Europe/Rome')).details[0].value).toBe(forty);
  });
});

describe('parseDateRange', () => {
  it('reads plain dates as whole calendar days in the zone, both days included', () => {
    expect(iso(parseDateRange('2026-07-01', '2026-07-01', 'Europe/Rome'))).toEqual(['2026-06-30T22:00:00.000Z', '2026-07-01T22:00:00.000Z']);
    expect(iso(parseDateRange('2026-07-01', '2026-07-03', 'UTC'))).toEqual(['2026-07-01T00:00:00.000Z', '2026-07-04T00:00:00.000Z']);
    // The same text in another zone is another range (what is remembered is kept apart by zone).
    expect(iso(parseDateRange('2026-07-01', '2026-07-03', 'America/New_York'))).toEqual(['2026-07-01T04:00:00.000Z', '2026-07-04T04:00:00.000Z']);
  });

  it('reads date-times as instants, the end excluded; without an offset as wall-clock times in the zone', () => {
    expect(iso(parseDateRange('2026-07-01T06:00:00+02:00', '2026-07-01T08:30:00Z', 'UTC'))).toEqual(['2026-07-01T04:00:00.000Z', '2026-07-01T08:30:00.000Z']);
    expect(iso(parseDateRange('2026-07-01T06:00:00', '2026-07-01T08:00', 'Europe/Rome'))).toEqual(['2026-07-01T04:00:00.000Z', '2026-07-01T06:00:00.000Z']);
    expect(iso(parseDateRange('2026-07-01T06:00:00.123456789-0300', '2026-07-02T00:00:00+01', 'UTC'))).toEqual(['2026-07-01T09:00:00.123Z', '2026-07-01T23:00:00.000Z']);
  });

  it("reads the space a query string's '+' became as the offset's sign", () => {
    expect(iso(parseDateRange('2026-05-01T00:00:00 02:00', '2026-05-02T00:00:00 0200', 'UTC'))).toEqual(['2026-04-30T22:00:00.000Z', '2026-05-01T22:00:00.000Z']);
    expect(iso(parseDateRange(' 2026-05-01T00:00:00 02 ', '2026-05-01T12:00:00Z', 'UTC'))[0]).toBe('2026-04-30T22:00:00.000Z');
  });

  it('mixes a plain date and a date-time', () => {
    expect(iso(parseDateRange('2026-07-01', '2026-07-01T12:00:00Z', 'UTC'))).toEqual(['2026-07-01T00:00:00.000Z', '2026-07-01T12:00:00.000Z']);
    expect(iso(parseDateRange('2026-06-30T12:00:00Z', '2026-07-01', 'UTC'))).toEqual(['2026-06-30T12:00:00.000Z', '2026-07-02T00:00:00.000Z']);
  });

  it('hands each caller its own dates: changing one answer changes no later one', () => {
    const first = parseDateRange('2026-08-01', '2026-08-02', 'UTC');
    first.from.setUTCFullYear(1999);
    first.to.setUTCFullYear(1999);
    expect(iso(parseDateRange('2026-08-01', '2026-08-02', 'UTC'))).toEqual(['2026-08-01T00:00:00.000Z', '2026-08-03T00:00:00.000Z']);
  });

  it('accepts a start equal to the end: an empty range of date-times, the first instant of a plain end day', () => {
    expect(iso(parseDateRange('2026-07-01T10:00:00Z', '2026-07-01T10:00:00Z', 'UTC'))).toEqual(['2026-07-01T10:00:00.000Z', '2026-07-01T10:00:00.000Z']);
    expect(iso(parseDateRange('2026-07-01T00:00:00Z', '2026-07-01', 'UTC'))).toEqual(['2026-07-01T00:00:00.000Z', '2026-07-02T00:00:00.000Z']);
  });

  it('refuses a start after the end, naming start', () => {
    const error = refusal(() => parseDateRange('2026-07-02', '2026-07-01', 'UTC'));
    expect(error.status).toBe(400);
    expect(error.details).toEqual([{ field: 'start', message: 'start (2026-07-02) is after end (2026-07-01): expected start on or before end' }]);
    expect(error.message).toBe('start (2026-07-02) is after end (2026-07-01): expected start on or before end');
    expect(refusal(() => parseDateRange('2026-07-01T10:00:01Z', '2026-07-01T10:00:00Z', 'UTC')).details[0].field).toBe('start');
  });

  it(`takes at most ${MAX_RANGE_DAYS} days, and refuses a longer range naming end`, () => {
    expect(MAX_RANGE_DAYS).toBe(366);
    expect(iso(parseDateRange('2026-01-01', '2027-01-01', 'UTC'))).toEqual(['2026-01-01T00:00:00.000Z', '2027-01-02T00:00:00.000Z']);
    expect(iso(parseDateRange('2026-01-01T00:00:00Z', '2027-01-02T00:00:00Z', 'UTC'))[1]).toBe('2027-01-02T00:00:00.000Z');
    const error = refusal(() => parseDateRange('2026-01-01', '2027-01-02', 'UTC'));
    expect(error.details).toEqual([{ field: 'end', message: 'the range from start to end is longer than 366 days: ask for a shorter range' }]);
    expect(refusal(() => parseDateRange('2026-01-01T00:00:00Z', '2027-01-02T00:00:00.001Z', 'UTC')).details[0].field).toBe('end');
  });

  it('requires both bounds, reporting every problem at once', () => {
    const expected = 'expected a date YYYY-MM-DD or an ISO 8601 date-time such as 2026-05-01T00:00:00+02:00 (without an offset it is read in the time zone of the request)';
    const error = refusal(() => parseDateRange(undefined, '', 'UTC'));
    expect(error.details).toEqual([
      { field: 'start', message: `start is required: ${expected}` },
      { field: 'end', message: `end is required: ${expected}` },
    ]);
    expect(error.message).toBe(`start is required: ${expected}; end is required: ${expected}`);
    expect(refusal(() => parseDateRange('2026-07-01', null, 'UTC')).details).toEqual([{ field: 'end', message: `end is required: ${expected}` }]);
    expect(refusal(() => parseDateRange(['2026-07-01', '2026-07-02'], '2026-07-03', 'UTC')).details).toEqual([
      { field: 'start', message: `start must be a single string: ${expected}` },
    ]);
  });

  it('refuses text in no recognised format, quoting it (cut at 40 characters)', () => {
    for (const text of ['01/07/2026', '2026-07-01 10:00', '2026-7-1', 'x2026-07-01', '2026-07-01x', 'x2026-07-01T10:00:00Z', '2026-07-01T10:00:00.1234567890Z', '2026-07-01T10', 'T10:00 02:00']) {
      const error = refusal(() => parseDateRange(text, '2026-07-02', 'UTC'));
      expect(error.details).toEqual([{ field: 'start', message: expect.stringMatching(new RegExp(`^start "${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}" is not in a recognised format: expected a date YYYY-MM-DD`)) }]);
    }
    const long = `2026-07-01T${'0'.repeat(50)}`;
    expect(refusal(() => parseDateRange('2026-07-01', long, 'UTC')).details[0].message).toMatch(new RegExp(`^end "${long.slice(0, 40)}…" is not in a recognised format`));
  });

  it('refuses a date or time that does not exist', () => {
    expect(refusal(() => parseDateRange('2026-02-30', '2026-03-01', 'UTC')).details).toEqual([
      { field: 'start', message: expect.stringMatching(/^start "2026-02-30" is not a real date or time: expected a date YYYY-MM-DD/) },
    ]);
    expect(refusal(() => parseDateRange('2026-02-01', '2026-02-01T25:00:00Z', 'UTC')).details[0].message).toMatch(/^end "2026-02-01T25:00:00Z" is not a real date or time/);
  });
});

describe('parseDateRange on the days daylight saving time moves midnight', () => {
  it('starts a day where its clocks first show it: midnight twice (clocks back at 01:00), midnight skipped (forward at 00:00), a day skipped whole', () => {
    // Atlantic/Azores, 31 October 2027: 01:00 summer time (00:00Z) goes back to 00:00; the next midnight is at 01:00Z.
    expect(iso(parseDateRange('2027-10-31', '2027-10-31', 'Atlantic/Azores'))).toEqual(['2027-10-31T00:00:00.000Z', '2027-11-01T01:00:00.000Z']);
    // Atlantic/Azores, 28 March 2027: 00:00 standard time (01:00Z) goes forward to 01:00: a day of 23 hours.
    expect(iso(parseDateRange('2027-03-28', '2027-03-28', 'Atlantic/Azores'))).toEqual(['2027-03-28T01:00:00.000Z', '2027-03-29T00:00:00.000Z']);
    // America/Havana, 7 November 2027: clocks go back at 01:00, so the day starts at the first 00:00 (04:00Z).
    expect(iso(parseDateRange('2027-11-07', '2027-11-07', 'America/Havana'))[0]).toBe('2027-11-07T04:00:00.000Z');
    // Pacific/Apia skipped 30 December 2011: the day holds no instant.
    expect(iso(parseDateRange('2011-12-30', '2011-12-30', 'Pacific/Apia'))).toEqual(['2011-12-30T10:00:00.000Z', '2011-12-30T10:00:00.000Z']);
    // Days whose change is not at midnight start at midnight as before (Rome, 28 March 2027: 23 hours).
    expect(iso(parseDateRange('2027-03-28', '2027-03-28', 'Europe/Rome'))).toEqual(['2027-03-27T23:00:00.000Z', '2027-03-28T22:00:00.000Z']);
  });

  it('takes a date-time start inside a plain end day, and refuses offsets no zone has', () => {
    expect(iso(parseDateRange('2027-05-12T22:00:00Z', '2027-05-12', 'UTC'))).toEqual(['2027-05-12T22:00:00.000Z', '2027-05-13T00:00:00.000Z']);
    expect(refusal(() => parseDateRange('2027-05-13T00:00:00Z', '2027-05-12', 'UTC')).details[0]).toMatchObject({ field: 'start' });
    expect(iso(parseDateRange('2027-05-12T00:00:00+14:00', '2027-05-12T00:00:00-12:00', 'UTC'))).toEqual(['2027-05-11T10:00:00.000Z', '2027-05-12T12:00:00.000Z']);
    expect(refusal(() => parseDateRange('2027-05-12T00:00:00+25:00', '2027-05-13', 'UTC')).details[0]).toMatchObject({ field: 'start' });
    expect(refusal(() => parseDateRange('2027-05-12', '2027-05-13T00:00:00+02:60', 'UTC')).details[0]).toMatchObject({ field: 'end' });
  });
});
