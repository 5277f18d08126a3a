const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timezone, formatter);
  }
  return formatter;
}

/**
 * The wall-clock time of `instant` in `timezone`, as `YYYY-MM-DD HH:MM` (the legacy timeline
 * format). Formatters are cached per zone: a timeline formats thousands of these per request.
 */
export function formatLocalDateTime(instant: Date, timezone: string): string {
  // en-CA formats as "2026-05-01, 09:30".
  const text = formatterFor(timezone).format(instant);
  return `${text.slice(0, 10)} ${text.slice(12, 17)}`;
}
