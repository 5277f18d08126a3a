// Zone offsets change on quarter-hour boundaries of UTC (Lord Howe Island's at :30, for one).
const BUCKET_MS = 15 * 60_000;
const MINUTE_MS = 60_000;
const MINUTES_A_DAY = 24 * 60;
const DAY_MS = MINUTES_A_DAY * MINUTE_MS;
/** Entries kept per cache before it is emptied (a year of quarter hours is 35,040). */
const CACHE_LIMIT = 100_000;

const formatters = new Map<string, Intl.DateTimeFormat>();
/** Per zone: UTC offset in ms during each UTC quarter hour (numeric keys: no key string per call). */
const offsetsByZone = new Map<string, Map<number, number>>();
/** `YYYY-MM-DD ` of a local day number (days since 1970-01-01), and `HH:MM` of each minute of a day. */
const dayPrefixes = new Map<number, string>();
/**
 * `YYYY-MM-DD HH:MM` of a local minute (minutes since 1970-01-01 on the wall clock, whatever the
 * zone): one string shared by every entry and request of that minute instead of a concatenation
 * made for each (a tenth of what a 20,000-entry timeline allocated; figures: bench/README.md,
 * "Session 15"). At most CACHE_LIMIT entries: a few MiB.
 */
const minuteTexts = new Map<number, string>();
const pad = (value: number) => (value < 10 ? `0${value}` : String(value));
const TIMES_OF_DAY = Array.from({ length: MINUTES_A_DAY }, (_, minute) => `${pad(Math.floor(minute / 60))}:${pad(minute % 60)}`);

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      hourCycle: 'h23',
    });
    formatters.set(timezone, formatter);
  }
  return formatter;
}

/** The zone's offset from UTC at `instant`, read from Intl once per zone and UTC quarter hour. */
function offsetAt(instant: number, timezone: string): number {
  let offsets = offsetsByZone.get(timezone);
  if (!offsets) offsetsByZone.set(timezone, (offsets = new Map()));
  const bucket = Math.floor(instant / BUCKET_MS);
  let offset = offsets.get(bucket);
  if (offset === undefined) {
    const at = bucket * BUCKET_MS;
    const parts: Record<string, number> = {};
    for (const part of formatterFor(timezone).formatToParts(at)) parts[part.type] = Number(part.value);
    const wall = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute);
    offset = wall - at;
    if (offsets.size > CACHE_LIMIT) offsets.clear();
    offsets.set(bucket, offset);
  }
  return offset;
}

function dayPrefix(day: number): string {
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    const date = new Date(day * DAY_MS);
    prefix = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} `;
    if (dayPrefixes.size > CACHE_LIMIT) dayPrefixes.clear();
    dayPrefixes.set(day, prefix);
  }
  return prefix;
}

/**
 * The wall-clock time of `instant` in `timezone`, as `YYYY-MM-DD HH:MM` (the legacy timeline
 * format). Zone rules come from Intl; offsets are cached per zone and UTC quarter hour, and the
 * text per local minute (built from the day's and the minute's parts), because a timeline formats
 * thousands of these per request and a call should cost no new string.
 */
export function formatLocalDateTime(instant: Date, timezone: string): string {
  return formatLocalTime(instant.getTime(), timezone);
}

/** `formatLocalDateTime` of a time value (ms since 1970): no Date needed. */
export function formatLocalTime(time: number, timezone: string): string {
  const minute = Math.floor((time + offsetAt(time, timezone)) / MINUTE_MS);
  let text = minuteTexts.get(minute);
  if (text === undefined) {
    const day = Math.floor(minute / MINUTES_A_DAY);
    text = dayPrefix(day) + TIMES_OF_DAY[minute - day * MINUTES_A_DAY];
    if (minuteTexts.size > CACHE_LIMIT) minuteTexts.clear();
    minuteTexts.set(minute, text);
  }
  return text;
}
