import { formatLocalTime } from '../../src/shared/local-time';

/** `YYYY-MM-DD HH:MM` in `timeZone` as Intl writes it, built independently of the module's caches. */
function reference(time: number, timeZone: string): string {
  const parts: Record<string, string> = {};
  const format = new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  for (const part of format.formatToParts(time)) parts[part.type] = part.value;
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

const MINUTE = 60_000;

describe('formatLocalTime', () => {
  it('stays right once its per-minute texts outgrow their cache and are dropped (more than 100,000 distinct minutes, across a clock change)', () => {
    // 2026-03-01 to mid-May in London: 105,000 minutes, the spring clock change among them.
    const first = Date.UTC(2026, 2, 1);
    const minutes = 105_000;
    const mismatches: string[] = [];
    for (let index = 0; index < minutes; index += 1) {
      const time = first + index * MINUTE;
      const text = formatLocalTime(time, 'Europe/London');
      if (index % 97 === 0 && text !== reference(time, 'Europe/London')) mismatches.push(`${new Date(time).toISOString()}: ${text}`);
    }
    // Asked again after the cache was emptied: the same texts, rebuilt; and another zone's minutes with them.
    for (let index = 0; index < minutes; index += 1009) {
      const time = first + index * MINUTE;
      for (const zone of ['Europe/London', 'America/New_York', 'Australia/Lord_Howe']) {
        if (formatLocalTime(time, zone) !== reference(time, zone)) mismatches.push(`${zone} ${new Date(time).toISOString()}: ${formatLocalTime(time, zone)}`);
      }
    }
    expect(mismatches).toEqual([]);
  });
});
