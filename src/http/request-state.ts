import type { Response } from 'express';

/** Where the request's GraphQL context waits on `res.locals` (the REST facade's routes, the `/graphql` route). */
export const GRAPHQL_CONTEXT = 'graphqlContext';

/**
 * What a request's middleware hands to its handler on `res.locals` (the GraphQL context, an
 * uploaded file), taken off as the handler reads it, so that nothing of the request hangs off the
 * response once its answer is sent.
 *
 * Why it matters: V8 keeps Node's request and response objects in its old generation (its
 * allocation-site pretenuring, decided from how long such objects were seen to live), so whatever
 * they point at survives every young-generation collection, dead or alive, until the next full
 * collection. A context left on `res.locals` kept its loaders, warnings and signal for that long:
 * 4 to 10 % of what empty-day REST requests allocated survived each young collection and was
 * promoted, and the old generation filled up with it (figures: bench/README.md, "Session 12").
 * Taken off, the request's objects die young.
 */
export function takeLocal<T>(res: Response, name: string): T | undefined {
  const value = res.locals[name] as T | undefined;
  res.locals[name] = undefined;
  return value;
}
