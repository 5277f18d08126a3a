import type { ComplexityEstimator } from 'graphql-query-complexity';
import { MAX_RANGE_DAYS, parseDateRange } from '../timeline/date-range';

/** What the cost estimate knows about the service, passed to the estimators by the cost guard. */
export interface CostContext {
  /** Flights a day a date-range list is assumed to hold (GRAPHQL_COST_FLIGHTS_PER_DAY). */
  flightsPerDay: number;
  timezone: string;
}

/**
 * Estimated rows of the lists whose size is not set by an argument. Airports: the service's own
 * limit. Passengers: a large charter aircraft. Resources and a list's history: generous guesses
 * for a broker's fleet and a list's life.
 */
export const LIST_ROWS = {
  airports: 500,
  resources: 100,
  passengers: 300,
  history: 100,
} as const;

/** Cost of a list of at most `rows` rows: its selection counted once per row. */
export const listComplexity = (rows: number) => (({ childComplexity }) => 1 + Math.max(1, childComplexity) * rows) satisfies ComplexityEstimator;

/**
 * Cost of a list of flights over the `start`–`end` argument range: one row per flight, so the
 * range's days × the flights a day the configuration assumes. An unreadable range is costed as
 * the longest one (the resolver then refuses it anyway).
 */
export const dateRangeListComplexity: ComplexityEstimator = ({ args, childComplexity, context }) => {
  const { flightsPerDay, timezone } = context as CostContext;
  let days = MAX_RANGE_DAYS;
  try {
    const range = parseDateRange(args.start, args.end, timezone);
    days = Math.max(1, Math.ceil((range.to.getTime() - range.from.getTime()) / 86_400_000));
  } catch {
    // The resolver reports the bad range; the estimate assumes the worst.
  }
  return 1 + Math.max(1, childComplexity) * days * flightsPerDay;
};
