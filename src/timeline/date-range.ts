import { LRUCache } from 'lru-cache';
import { DateTime, IANAZone } from 'luxon';
import { invalidInput, type ErrorDetail } from '../errors';

/** A half-open interval of instants: `from` included, `to` excluded. */
export interface InstantRange {
  from: Date;
  to: Date;
}

export const MAX_RANGE_DAYS = 366;

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
// An ISO 8601 date-time; the offset is optional because FullCalendar leaves it out with a named
// time zone (the date-time is then a wall-clock time in the request's zone).
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-](0\d|1[0-8])(:?[0-5]\d)?)?$/;
const EXPECTED = 'expected a date YYYY-MM-DD or an ISO 8601 date-time such as 2026-05-01T00:00:00+02:00 (without an offset it is read in the time zone of the request)';

/** A bound as read: its instant (a day's first instant for a plain date), and the day itself for a plain date. */
type Bound = { instant: DateTime; day?: string };

/**
 * The time zone a timeline request is read and answered in: the caller's `timeZone` when given
 * (an IANA name, `UTC` included), else the service's. An unknown zone is a 400 naming it, never a
 * silent fallback: the answer would be drawn hours off.
 */
export function resolveTimeZone(requested: string | null | undefined, serviceZone: string): string {
  if (requested === undefined || requested === null) return serviceZone;
  if (typeof requested === 'string' && requested.trim() !== '' && IANAZone.isValidZone(requested.trim())) return requested.trim();
  const shown = typeof requested === 'string' ? truncate(requested) : String(requested);
  throw invalidInput(`timeZone "${shown}" is not a known time zone: expected an IANA time zone name such as Europe/Rome, or UTC`, [
    { field: 'timeZone', message: `unknown time zone "${shown}": expected an IANA name such as Europe/Rome, or UTC`, value: shown },
  ]);
}

/**
 * Reads the timeline's `start` and `end`. A plain date is a calendar day in `timezone` and both
 * days are included; a date-time is an instant and `end` is then exclusive (FullCalendar's
 * convention); one without an offset is a wall-clock time in `timezone`. Every problem names its
 * parameter; all are reported together.
 */
export function parseDateRange(start: unknown, end: unknown, timezone: string): InstantRange {
  // Calendars ask for the same few ranges over and over, and each is read twice (cost estimate, resolver).
  const key = typeof start === 'string' && typeof end === 'string' && start.length <= 40 && end.length <= 40 ? JSON.stringify([start, end, timezone]) : undefined;
  const known = key === undefined ? undefined : parsedRanges.get(key);
  if (known) return { from: new Date(known.from), to: new Date(known.to) };
  const range = parseDateRangeOnce(start, end, timezone);
  if (key !== undefined) parsedRanges.set(key, { from: range.from.getTime(), to: range.to.getTime() });
  return range;
}

/** Valid ranges already read, as instants (errors are not kept: they are rare and cheap to redo). */
const parsedRanges = new LRUCache<string, { from: number; to: number }>({ max: 1000 });

function parseDateRangeOnce(start: unknown, end: unknown, timezone: string): InstantRange {
  const problems: ErrorDetail[] = [];
  const from = parseBound('start', start, timezone, problems);
  const until = parseBound('end', end, timezone, problems);
  if (from && until) {
    // A plain end day is included: the range ends where the next day starts.
    const to = until.day ? startOfDay(DateTime.fromISO(until.day, { zone: 'UTC' }).plus({ days: 1 }).toISODate()!, timezone) : until.instant;
    // Two plain days compare as days (a day a zone skipped has no instant of its own); else start must
    // not come after the last instant of the range (an end day's whole day counts).
    const startAfterEnd = from.day && until.day ? from.day > until.day : from.instant > (until.day ? to.minus({ milliseconds: 1 }) : until.instant);
    if (startAfterEnd) {
      problems.push({ field: 'start', message: `start (${String(start)}) is after end (${String(end)}): expected start on or before end` });
    } else if (to.diff(from.instant, 'days').days > MAX_RANGE_DAYS) {
      problems.push({ field: 'end', message: `the range from start to end is longer than ${MAX_RANGE_DAYS} days: ask for a shorter range` });
    } else {
      return { from: from.instant.toJSDate(), to: to.toJSDate() };
    }
  }
  throw invalidInput(problems.map((problem) => problem.message).join('; '), problems);
}

function parseBound(name: 'start' | 'end', raw: unknown, timezone: string, problems: ErrorDetail[]): Bound | undefined {
  if (raw === undefined || raw === null || raw === '') {
    problems.push({ field: name, message: `${name} is required: ${EXPECTED}` });
    return undefined;
  }
  if (typeof raw !== 'string') {
    problems.push({ field: name, message: `${name} must be a single string: ${EXPECTED}` });
    return undefined;
  }
  // A '+' in a query string decodes to a space: "2026-05-01T00:00:00 02:00" means +02:00.
  const value = raw.trim().replace(/^(\S+T\S+) (\d{2}(:?\d{2})?)$/, '$1+$2');
  let instant: DateTime | undefined;
  let day: string | undefined;
  if (DATE_ONLY.test(value)) {
    instant = DateTime.fromISO(value, { zone: 'UTC' }).isValid ? startOfDay(value, timezone) : DateTime.invalid('not a calendar day');
    day = value;
  } else if (DATE_TIME.test(value)) {
    // With an offset the instant is absolute; without one, `zone` places the wall-clock time.
    instant = DateTime.fromISO(value, { zone: timezone });
  }
  if (!instant) {
    problems.push({ field: name, message: `${name} "${truncate(raw)}" is not in a recognised format: ${EXPECTED}` });
    return undefined;
  }
  if (!instant.isValid) {
    problems.push({ field: name, message: `${name} "${truncate(raw)}" is not a real date or time: ${EXPECTED}` });
    return undefined;
  }
  return day ? { instant, day } : { instant };
}

const HOUR_MS = 3_600_000;

/**
 * The first instant of calendar day `day` (YYYY-MM-DD) in `zone`: the instant its clocks first show
 * that day. Not luxon's reading of the wall time `day`T00:00, which is wrong on the days daylight
 * saving time moves midnight: where midnight comes twice (Atlantic/Azores, America/Havana, clocks
 * going back at 01:00), luxon takes the second, and the hour between would belong to no day; where
 * midnight is skipped (clocks going forward at 00:00), luxon moves to 01:00 and a day plus one takes
 * in an hour of the next. A day a zone skipped whole (Pacific/Apia, 2011-12-30) starts where the next
 * one does: it holds no instant. Each offset the zone has around that midnight is tried; the day
 * starts at the earliest instant whose local day is `day` and whose previous millisecond's is not.
 */
function startOfDay(day: string, zone: string): DateTime {
  const target = DateTime.fromISO(day, { zone: 'UTC' });
  for (let skipped = 0; skipped < 3; skipped += 1) {
    const date = target.plus({ days: skipped });
    const isoDay = date.toISODate();
    const wallMidnight = date.toMillis();
    let first: number | undefined;
    for (const probe of [-24, -12, 0, 12, 24]) {
      const offset = DateTime.fromMillis(wallMidnight + probe * HOUR_MS, { zone }).offset;
      const candidate = wallMidnight - offset * 60_000;
      if (first !== undefined && candidate >= first) continue;
      if (DateTime.fromMillis(candidate, { zone }).toISODate() !== isoDay) continue;
      if (DateTime.fromMillis(candidate - 1, { zone }).toISODate() === isoDay) continue;
      first = candidate;
    }
    if (first !== undefined) return DateTime.fromMillis(first, { zone });
  }
  // No zone skips three days running: unreachable with IANA data.
  return DateTime.fromISO(day, { zone });
}

function truncate(value: string): string {
  return value.length > 40 ? `${value.slice(0, 40)}…` : value;
}
