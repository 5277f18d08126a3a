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
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)?$/;
const EXPECTED = 'expected a date YYYY-MM-DD or an ISO 8601 date-time such as 2026-05-01T00:00:00+02:00 (without an offset it is read in the time zone of the request)';

type Bound = { instant: DateTime; dateOnly: boolean };

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
    const to = until.dateOnly ? until.instant.plus({ days: 1 }) : until.instant;
    if (from.instant > until.instant) {
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
  let dateOnly = false;
  if (DATE_ONLY.test(value)) {
    instant = DateTime.fromISO(value, { zone: timezone });
    dateOnly = true;
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
  return { instant, dateOnly };
}

function truncate(value: string): string {
  return value.length > 40 ? `${value.slice(0, 40)}…` : value;
}
