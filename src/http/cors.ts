import cors from 'cors';
import type { RequestHandler } from 'express';

/** Request headers browsers may send cross-origin, and response headers their scripts may read. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'Idempotency-Key', 'Apollo-Require-Preflight', 'X-Request-Id'];
/**
 * Every response header a client acts on beyond the CORS-safelisted ones: the list version, an
 * export's file name, an upload's warnings, the challenge of a 401/403, when to retry a 429 or
 * 503 and the rate limit's state, the request id, the methods of a 405.
 */
const EXPOSED_HEADERS = ['ETag', 'Content-Disposition', 'X-Sheet-Warnings', 'WWW-Authenticate', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'X-Request-Id', 'Allow'];
/**
 * The methods the service answers anywhere: the facade's GET (HEAD) and POST, /graphql's GET and
 * POST, and the preflight itself. One list for every path: per path would only tell a browser
 * sooner of a 405 the path answers anyway (GET, HEAD and POST need no preflight at all).
 */
const ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'OPTIONS'];

/**
 * Cross-origin access for browser front ends (a FullCalendar page on another host). Identity travels
 * in the Authorization header, never in cookies, so credentials stay off. No origins: no CORS headers.
 */
export function crossOrigin(origins: readonly string[]): RequestHandler[] {
  // No origin allowed: nothing to do, and no step on the way.
  if (origins.length === 0) return [];
  return [cors({
    origin: origins.includes('*') ? '*' : [...origins],
    credentials: false,
    methods: ALLOWED_METHODS,
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  })];
}
