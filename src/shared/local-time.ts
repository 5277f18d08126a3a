// Zone offsets change on quarter-hour boundaries of UTC (Lord Howe Island's at :30, for one).
const BUCKET_MS = 15 * 60_000;

const formatters = new Map<string, Intl.DateTimeFormat>();
/** UTC offset in ms of a zone during one UTC quarter hour, keyed `zone|bucket`. */
const offsets = new Map<string, number>();

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
  const bucket = Math.floor(instant / BUCKET_MS);
  const key = `${timezone}|${bucket}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    const at = bucket * BUCKET_MS;
    const parts: Record<string, number> = {};
    for (const part of formatterFor(timezone).formatToParts(at)) parts[part.type] = Number(part.value);
    const wall = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute);
    offset = wall - at;
    if (offsets.size > 100_000) offsets.clear();
    offsets.set(key, offset);
  }
  return offset;
}

const pad = (value: number) => (value < 10 ? `0${value}` : String(value));

/**
 * The wall-clock time of `instant` in `timezone`, as `YYYY-MM-DD HH:MM` (the legacy timeline
 * format). Zone rules come from Intl; offsets are cached per zone and UTC quarter hour, because a
 * timeline formats thousands of these per request.
 */
export function formatLocalDateTime(instant: Date, timezone: string): string {
  const time = instant.getTime();
  const local = new Date(time + offsetAt(time, timezone));
  return `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())} ${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}`;
}
