import type { ComplexityEstimator } from 'graphql-query-complexity';

/** Estimated rows a list field returns, for the query cost limit (a month of a busy timeline). */
export const ESTIMATED_LIST_SIZE = 50;

/** Cost of a list field: its selection counted once per estimated row. */
export const listComplexity = (({ childComplexity }) => 1 + childComplexity * ESTIMATED_LIST_SIZE) satisfies ComplexityEstimator;
