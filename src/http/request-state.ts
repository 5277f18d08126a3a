import type { Response } from 'express';

/**
 * What a request's middleware hands to its handler on `res.locals` (the GraphQL context, an
 * uploaded file), taken off as the handler reads it, so that nothing of the request hangs off the
 * response once its answer is sent.
 *
 * Why it matters: V8 keeps Node's request and response objects in its old generation (its
 * allocation-site pretenuring, decided from how long such objects lived while the process warmed
 * up), so whatever they point at survives every young-generation collection, dead or alive, until
 * the next full collection. A context left on `res.locals` kept its loaders, warnings and signal
 * for that long: a fifth of everything an empty-day REST request allocated was promoted, and the
 * old generation filled up with it (figures: bench/README.md, "Session 12"). Taken off, the
 * request's objects die young.
 */
export function takeLocal<T>(res: Response, name: string): T | undefined {
  const value = res.locals[name] as T | undefined;
  res.locals[name] = undefined;
  return value;
}
