/** Jitter around each scheduled delay: ±20 %, so endpoints failing together do not retry in step. */
const JITTER = 0.2;

/**
 * The wait before the retry after `retriesUsed` retries, or undefined when the schedule is spent
 * (the delivery has failed).
 */
export function retryDelayMs(scheduleMs: readonly number[], retriesUsed: number, random: () => number = Math.random): number | undefined {
  if (retriesUsed >= scheduleMs.length) return undefined;
  return Math.round(scheduleMs[retriesUsed] * (1 - JITTER + 2 * JITTER * random()));
}
