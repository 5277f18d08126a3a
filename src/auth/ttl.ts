const SECONDS_PER_UNIT: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** Longest lifetime `npm run token` will mint. */
export const MAX_TTL_SECONDS = 365 * 86_400;

/**
 * Reads a token lifetime such as `30m`, `1h`, `12h` or `7d` (units s, m, h, d) into seconds.
 * Returns undefined for anything else, zero, or more than a year.
 */
export function parseTtl(text: string): number | undefined {
  const match = /^(\d{1,9})([smhd])$/.exec(text.trim());
  if (!match) return undefined;
  const seconds = Number(match[1]) * SECONDS_PER_UNIT[match[2]];
  return seconds > 0 && seconds <= MAX_TTL_SECONDS ? seconds : undefined;
}
