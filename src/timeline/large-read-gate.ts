import { AppError, ErrorCode, queryTimeout } from '../errors';
import { TurnGate, type TurnGateLimits } from '../shared/turn-gate';

/** Seconds a refused or timed-out client is told to wait: a large read takes about a second at 20,000 flights. */
const RETRY_AFTER_SECONDS = 1;

export interface LargeReadLimits extends TurnGateLimits {
  /** Large reads in flight at once (TIMELINE_LARGE_READS_MAX). */
  maxInFlight: number;
  /** Large reads waiting for a turn; one more is refused with 503 (TIMELINE_LARGE_READS_QUEUE). */
  maxWaiting: number;
}

/** How long a waiting read may wait, and what ends its wait early. */
export interface LargeReadWait {
  /** Aborted when the request ended (its client went away): it leaves the queue. */
  ended?: AbortSignal;
  /** Longest wait, in ms: what is left of the request's execution time limit. */
  waitLimitMs: number;
  /** That limit (GRAPHQL_TIMEOUT_MS): a wait that spends it ends as any query past it, QUERY_TIMEOUT. */
  timeLimitMs: number;
}

/**
 * Caps how many large timeline reads hold their data at once: each holds its flights' database
 * reply while it arrives, its entries, then its answer's bytes until the socket has taken them, and
 * without a cap N requests in flight hold N of each (docs/performance.md, "Scaling to 20,000
 * flights"). A TurnGate (src/shared/turn-gate.ts): a turn passes to the oldest waiter when a read
 * releases its own. A waiter leaves the queue when its request ends or its time is up (the wait
 * counts against GRAPHQL_TIMEOUT_MS: QUERY_TIMEOUT, as for a query that ran past it); the queue is
 * bounded, one more read is refused at once (503, Retry-After). Small reads never come here
 * (TimelineService decides which reads are large), so they never wait behind large ones.
 */
export class LargeReadGate {
  private readonly gate: TurnGate;

  constructor(limits: LargeReadLimits) {
    this.gate = new TurnGate(limits, queueFull);
  }

  /** Reads holding a turn, and reads waiting for one (the /metrics gauges). */
  stats(): { inFlight: number; waiting: number } {
    return this.gate.stats();
  }

  /** Resolves with the turn's release (call it once the read's answer is sent) when the read may go. */
  enter({ ended, waitLimitMs, timeLimitMs }: LargeReadWait): Promise<() => void> {
    return this.gate.enter({ ended, limit: { ms: waitLimitMs, error: () => queryTimeout(timeLimitMs) } });
  }
}

function queueFull({ maxInFlight, maxWaiting }: TurnGateLimits): AppError {
  return new AppError(
    ErrorCode.SERVICE_UNAVAILABLE,
    `Too many large timeline reads at once: ${maxInFlight} running (TIMELINE_LARGE_READS_MAX) and ${maxWaiting} waiting (TIMELINE_LARGE_READS_QUEUE); try again shortly, or ask for a shorter range`,
    { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } },
  );
}
